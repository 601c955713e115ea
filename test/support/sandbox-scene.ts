import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempFolder } from './git-repo.js';

/** The example agent's check that passes only where the home's planted key cannot be seen. */
const KEY_UNSEEN =
  "node -e \"process.exit(require('fs').existsSync(require('os').homedir()+'/.ssh/id_ed25519')?1:0)\"";

/**
 * A home with a planted `~/.ssh/id_ed25519`, and a workspace whose checklist has the example agent write a file and
 * check that the key is out of its sight: `complete` in a sandbox, `blocked` (the check fails twice) without one.
 */
export function privateHomeScene() {
  const home = tempFolder('ralph-sandbox-home-');
  mkdirSync(join(home, '.ssh'));
  const key = join(home, '.ssh', 'id_ed25519');
  writeFileSync(key, 'planted secret\n');
  const workspace = tempFolder('ralph-sandbox-ws-');
  writeFileSync(
    join(workspace, 'TASKS.md'),
    `# Tasks\n\n- [ ] Create \`seen.txt\` containing "checked\\n" — check: \`${KEY_UNSEEN}\`\n`,
  );
  return { home, key, workspace, objective: 'Do the tasks in TASKS.md' };
}
