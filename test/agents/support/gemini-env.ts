import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type UserHome, userHome } from './user-home.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The real gemini installed by scripts/install-agents.mjs. */
export const geminiPath = resolve(root, '.agents-cache/node_modules/.bin/gemini');

/** The model the user's own settings choose. */
export const GEMINI_USER_MODEL = 'user-chosen-gemini';

/**
 * A fresh HOME whose ~/.gemini/settings.json selects API-key auth and a model, and whose ~/.gemini/.env holds the key
 * and the base URL of the scripted server: the user's own authentication, which each round must still use.
 */
export async function geminiHome(baseUrl: string): Promise<UserHome> {
  const home = await userHome('.gemini', ['GEMINI_', 'GOOGLE_']);
  const geminiDir = home.configDir;
  await writeFile(
    join(geminiDir, 'settings.json'),
    `${JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, model: { name: GEMINI_USER_MODEL } }, null, 2)}\n`,
  );
  await writeFile(join(geminiDir, '.env'), `GEMINI_API_KEY=user-key\nGOOGLE_GEMINI_BASE_URL=${baseUrl}\n`);
  return home;
}
