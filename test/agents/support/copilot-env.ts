import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type UserHome, userHome } from './user-home.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The real copilot installed by scripts/install-agents.mjs. */
export const copilotPath = resolve(root, '.agents-cache/node_modules/.bin/copilot');

/** The model and key of the user's own provider (BYOK, in their environment). */
export const COPILOT_USER_MODEL = 'gpt-4.1';
export const COPILOT_USER_KEY = 'user-key';

/**
 * A fresh HOME whose ~/.copilot holds the user's settings and the config the CLI wrote on its first start, and an
 * environment that points Copilot at the scripted server as a user on their own provider does (offline, BYOK).
 */
export async function copilotHome(baseUrl: string): Promise<UserHome> {
  const home = await userHome('.copilot', ['COPILOT_', 'GH_', 'GITHUB_']);
  await writeFile(join(home.configDir, 'settings.json'), `${JSON.stringify({ banner: 'never' }, null, 2)}\n`);
  await writeFile(
    join(home.configDir, 'config.json'),
    '// User settings belong in settings.json.\n// This file is managed automatically.\n{\n  "firstLaunchAt": "2026-01-01T00:00:00.000Z"\n}\n',
  );
  Object.assign(home.env, {
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: baseUrl,
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_PROVIDER_API_KEY: COPILOT_USER_KEY,
    COPILOT_MODEL: COPILOT_USER_MODEL,
  });
  return home;
}
