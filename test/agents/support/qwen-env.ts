import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type UserHome, userHome } from './user-home.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const here = fileURLToPath(new URL('.', import.meta.url));

/** The real qwen installed by scripts/install-agents.mjs. */
export const qwenPath = resolve(root, '.agents-cache/node_modules/.bin/qwen');

/** The model the user's own settings choose. */
export const QWEN_USER_MODEL = 'user-chosen-model';

/**
 * A fresh HOME whose ~/.qwen holds the user's settings (the OpenAI auth type and a model of their choosing) and
 * ~/.qwen/.env their provider's key and base URL (the scripted server), plus what qwen itself writes there on its
 * first start (settings migrated to `$version` 4, an installation id, the output language): a real user has had
 * one. Nothing of the machine's own configuration is read.
 */
export async function qwenHome(baseUrl: string): Promise<UserHome> {
  const home = await userHome('.qwen', ['OPENAI_', 'QWEN_']);
  const qwenDir = home.configDir;
  await mkdir(join(qwenDir, 'skills'), { recursive: true });
  await writeFile(
    join(qwenDir, 'settings.json'),
    `${JSON.stringify({ security: { auth: { selectedType: 'openai' } }, model: { name: QWEN_USER_MODEL }, $version: 4 }, null, 2)}\n`,
  );
  // As qwen 0.15.10 writes it on a first start; a file without its marker comment is rewritten.
  await copyFile(join(here, 'qwen-output-language.md'), join(qwenDir, 'output-language.md'));
  await writeFile(join(qwenDir, '.env'), `OPENAI_API_KEY=user-key\nOPENAI_BASE_URL=${baseUrl}\n`);
  await writeFile(join(qwenDir, 'installation_id'), '00000000-0000-4000-8000-000000000000');
  return home;
}
