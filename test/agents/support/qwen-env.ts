import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const here = fileURLToPath(new URL('.', import.meta.url));

/** The real qwen installed by scripts/install-agents.mjs. */
export const qwenPath = resolve(root, '.agents-cache/node_modules/.bin/qwen');

/** The model the user's own settings choose. */
export const QWEN_USER_MODEL = 'user-chosen-model';

/** A user's HOME with Qwen Code configured as a real user has it: an OpenAI-compatible provider and a model. */
export interface QwenHome {
  /** HOME. */
  dir: string;
  /** ~/.qwen, the user's own Qwen Code configuration. */
  qwenDir: string;
  /** The environment for ralph, whose child inherits it. */
  env: NodeJS.ProcessEnv;
  /** Every file under ~/.qwen with its content: what a run must leave unchanged. */
  snapshot(): Record<string, string>;
  cleanup(): Promise<void>;
}

/** Every file under `dir` (relative path → content). */
function filesUnder(dir: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[path.slice(dir.length + 1)] = readFileSync(path, 'utf8');
  }
  return files;
}

/**
 * A fresh HOME whose ~/.qwen holds the user's settings (the OpenAI auth type and a model of their choosing) and
 * ~/.qwen/.env their provider's key and base URL (the scripted server), plus what qwen itself writes there on its
 * first start (settings migrated to `$version` 4, an installation id, the output language): a real user has had
 * one. Nothing of the machine's own configuration is read.
 */
export async function qwenHome(baseUrl: string): Promise<QwenHome> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-qwen-home-'));
  const qwenDir = join(dir, '.qwen');
  await mkdir(join(qwenDir, 'skills'), { recursive: true });
  await writeFile(
    join(qwenDir, 'settings.json'),
    `${JSON.stringify({ security: { auth: { selectedType: 'openai' } }, model: { name: QWEN_USER_MODEL }, $version: 4 }, null, 2)}\n`,
  );
  // As qwen 0.15.10 writes it on a first start; a file without its marker comment is rewritten.
  await copyFile(join(here, 'qwen-output-language.md'), join(qwenDir, 'output-language.md'));
  await writeFile(join(qwenDir, '.env'), `OPENAI_API_KEY=user-key\nOPENAI_BASE_URL=${baseUrl}\n`);
  await writeFile(join(qwenDir, 'installation_id'), '00000000-0000-4000-8000-000000000000');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: dir,
    // A CI proxy must not stand between qwen and the scripted server on loopback.
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
  for (const name of Object.keys(env))
    if (name.startsWith('OPENAI_') || name.startsWith('QWEN_') || name === 'RALPH_DEPTH') delete env[name];
  return {
    dir,
    qwenDir,
    env,
    snapshot: () => filesUnder(qwenDir),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
