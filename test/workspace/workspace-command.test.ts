import { describe, expect, it } from 'vitest';
import { currentDepth } from '../../src/index.js';
import { runWorkspaceCommand } from '../../src/workspace/workspace-command.js';
import { cleanEnv, useScratch } from '../support/processes.js';

const s = useScratch();

const printDepth = [process.execPath, '-e', 'process.stdout.write(String(process.env.RALPH_DEPTH))'];
const options = () => ({ cwd: s.workspace, timeoutMs: 60_000, killGraceMs: 200, maxOutputBytes: 1024 });

describe('a workspace command runs one Ralph level deeper than its host, like a command child', () => {
  it('sees RALPH_DEPTH one more than the environment it inherits', async () => {
    const top = await runWorkspaceCommand(printDepth, { ...options(), baseEnv: cleanEnv() });
    expect(top.stdout).toBe('1');
    const nested = await runWorkspaceCommand(printDepth, {
      ...options(),
      baseEnv: { ...cleanEnv(), RALPH_DEPTH: '2' },
    });
    expect(nested.stdout).toBe('3');
  });

  it("inherits this process's environment by default, with the depth incremented", async () => {
    const result = await runWorkspaceCommand(printDepth, options());
    expect(result.stdout).toBe(String(currentDepth() + 1));
  });
});
