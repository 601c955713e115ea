import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRunning, until, useScratch } from '../support/processes.js';
import { startHost } from '../support/round-hosts.js';

const s = useScratch();

describe('a host that dies without cleaning up still kills the process groups it started', () => {
  it.each([
    ['an uncaught exception', 'throw', 1],
    ['process.exit()', 'exit', 3],
  ] as const)('%s mid-round: the agent and its grandchild are gone', async (_, ending, exitCode) => {
    const tmp = join(s.logs, 'tmp');
    await mkdir(tmp);
    const host = startHost(
      ending,
      { tmp, workspace: s.workspace, pidLog: s.pidLog },
      ['spawn-grandchild.mjs', 'hang'],
      2,
    );
    const { code, stderr } = await host.ended;
    expect(code, stderr).toBe(exitCode);
    if (ending === 'throw') expect(stderr).toContain('the host crashed on purpose');

    const [agent, grandchild] = await s.pids();
    expect(grandchild).toBeDefined();
    await until(
      () => !isRunning(agent as number) && !isRunning(grandchild as number),
      'the agent and its grandchild to be gone',
    );
  });
});
