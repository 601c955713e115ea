// `npm start`: build when dist/ is missing or older than the sources, then run `ralph demo`, which copies
// examples/demo-workspace to a fresh temporary folder and runs a real loop there with the offline example agent.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist', 'hosts', 'cli', 'main.js');

/** The newest modification time of any file under `dir`. */
function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const sources = Math.max(newest(join(root, 'src')), statSync(join(root, 'package.json')).mtimeMs);
if (!existsSync(cli) || statSync(cli).mtimeMs < sources) {
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const demo = spawnSync(process.execPath, [cli, 'demo'], { stdio: 'inherit' });
process.exit(demo.status ?? 1);
