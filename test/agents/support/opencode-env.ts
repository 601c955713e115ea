import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filesUnder, type UserHome, userHome } from './user-home.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The real opencode installed by scripts/install-agents.mjs. */
export const opencodePath = resolve(root, '.agents-cache/node_modules/.bin/opencode');

/** The provider and model the user's own config chooses, and the key their auth.json holds. */
export const OPENCODE_USER_MODEL = 'user-chosen-model';
export const OPENCODE_USER_KEY = 'user-key';

/** A user's HOME with OpenCode configured: what a run must leave unchanged is ~/.config and ~/.local. */
export interface OpencodeHome extends UserHome {
  /** Every file under ~/.config and ~/.local/share with its content. */
  configAndData(): Record<string, string>;
}

/**
 * A fresh HOME, as opencode leaves it after a first start, whose ~/.config/opencode/opencode.json defines an OpenAI-compatible provider (the scripted server)
 * and picks a model of it, and whose ~/.local/share/opencode/auth.json holds the user's key for that provider.
 */
export async function opencodeHome(baseUrl: string): Promise<OpencodeHome> {
  const home = await userHome('.config', ['OPENCODE_', 'XDG_', 'OPENAI_']);
  await mkdir(join(home.configDir, 'opencode'));
  await writeFile(
    join(home.configDir, 'opencode', 'opencode.json'),
    `${JSON.stringify(
      {
        $schema: 'https://opencode.ai/config.json',
        provider: {
          scripted: {
            npm: '@ai-sdk/openai-compatible',
            name: 'scripted',
            options: { baseURL: baseUrl },
            models: { [OPENCODE_USER_MODEL]: { name: OPENCODE_USER_MODEL } },
          },
        },
        model: `scripted/${OPENCODE_USER_MODEL}`,
      },
      null,
      2,
    )}\n`,
  );
  // As opencode 1.18.33 leaves the folder on a first start (a real user has had one).
  await writeFile(
    join(home.configDir, 'opencode', '.gitignore'),
    'node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore',
  );
  const data = join(home.dir, '.local', 'share', 'opencode');
  await mkdir(data, { recursive: true });
  await writeFile(
    join(data, 'auth.json'),
    `${JSON.stringify({ scripted: { type: 'api', key: OPENCODE_USER_KEY } })}\n`,
  );
  return {
    ...home,
    configAndData: () => ({ ...filesUnder(home.configDir), ...filesUnder(join(home.dir, '.local')) }),
  };
}
