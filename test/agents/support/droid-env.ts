import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type UserHome, userHome } from './user-home.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The real droid installed by scripts/install-agents.mjs. */
export const droidPath = resolve(root, '.agents-cache/node_modules/.bin/droid');

/** The model and key of the user's own customModels entry (BYOK), and the id Droid gives it. */
export const DROID_USER_MODEL = 'user-chosen-model';
export const DROID_USER_KEY = 'user-key';
export const DROID_USER_MODEL_ID = 'custom:Scripted-0';

/**
 * A fresh HOME whose ~/.factory/settings.json defines a custom model on the scripted server (an OpenAI-compatible
 * chat completions API) and makes it the default, as a user on their own provider has it: offline, no Factory login.
 */
export async function droidHome(baseUrl: string): Promise<UserHome> {
  const home = await userHome('.factory', ['FACTORY_', 'DROID_']);
  const settings = {
    model: DROID_USER_MODEL_ID,
    customModels: [
      {
        model: DROID_USER_MODEL,
        displayName: 'Scripted',
        baseUrl,
        apiKey: DROID_USER_KEY,
        provider: 'generic-chat-completion-api',
        maxOutputTokens: 4096,
      },
    ],
  };
  await writeFile(join(home.configDir, 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  return home;
}
