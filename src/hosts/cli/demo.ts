import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../package-root.js';
import { runCommand } from './run.js';

/** The demo's objective: the example agent does one unchecked task of TASKS.md per round. */
export const DEMO_OBJECTIVE =
  'Work through TASKS.md in this workspace: do each unchecked task, tick it off, and report complete when every task is checked.';

/**
 * `ralph demo` (what `npm start` runs): copies the demo workspace to a fresh temporary folder and runs a real loop
 * there through `ralph run` with the offline example agent, then says where the workspace is so it can be looked at.
 */
export async function demoCommand(): Promise<number> {
  const workspace = join(packageRoot('ralph demo'), 'examples', 'demo-workspace');
  const dir = await mkdtemp(join(tmpdir(), 'ralph-demo-'));
  await cp(workspace, dir, { recursive: true });
  process.stderr.write(
    `ralph demo: copied examples/demo-workspace to ${dir}\nralph demo: objective: ${DEMO_OBJECTIVE}\n\n`,
  );
  const exitCode = await runCommand(DEMO_OBJECTIVE, { agent: 'example', cwd: dir });
  process.stderr.write(`\nralph demo: the workspace is at ${dir} (exit code ${exitCode})\n`);
  return exitCode;
}
