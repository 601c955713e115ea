import { spawnSync } from 'node:child_process';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, makeWorkspace, PLAN_AGENT_COMMAND, type Workspace } from '../fixtures/cli-agents/harness.js';
import { hasScript } from '../support/terminal.js';

const workspaces: Workspace[] = [];

afterEach(async () => {
  await Promise.all(workspaces.splice(0).map((workspace) => workspace.cleanup()));
});

/** Runs `ralph run` under a pseudo-terminal and returns everything it drew there (stdout and stderr together). */
async function inTerminal(env: NodeJS.ProcessEnv): Promise<{ screen: string; code: number | null }> {
  const ws = await makeWorkspace(['continue', 'complete']);
  workspaces.push(ws);
  const command = quote([
    process.execPath,
    CLI,
    'run',
    'Two rounds in a terminal',
    '--agent-command',
    PLAN_AGENT_COMMAND,
    '--cwd',
    ws.dir,
  ]);
  const { stdout, status } = spawnSync('script', ['-qfec', command, '/dev/null'], {
    encoding: 'utf8',
    env: { TERM: 'xterm', ...env },
  });
  return { screen: stdout, code: status };
}

const withoutNoColor = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  delete env.NO_COLOR;
  delete env.FORCE_COLOR;
  delete env.NODE_DISABLE_COLORS;
  delete env.TERM;
  // Node gives a terminal under CI=true (with no known CI vendor beside it) two colours, so none are painted.
  delete env.CI;
  return env;
};

const CLEAR_LINE = '\r\x1b[2K';
/** The SGR codes the CLI paints with: bold, dim, and the status colours. */
const COLORS = ['\x1b[1m', '\x1b[2m', '\x1b[3'];

describe.skipIf(!hasScript)('ralph run in a terminal', () => {
  it('draws a live status line with the elapsed time, keeps a line per round, and colours the statuses', async () => {
    const { screen, code } = await inTerminal(withoutNoColor());

    expect(code).toBe(0);
    expect(screen).toContain(CLEAR_LINE);
    expect(screen).toMatch(/round 1\/256 running \S*\d+\.\ds · \d+\.\ds in all/);
    expect(screen).toContain('round 2/256 reported \x1b[32mcomplete\x1b[0m: round 2 finished the work');
    // The status line is cleared before the result, which starts on a clean line.
    expect(screen).toContain(
      `${CLEAR_LINE}Ralph complete: the worker reported the objective complete after 2 rounds.`,
    );
  });

  it('draws no colours under NO_COLOR, and still redraws its status line', async () => {
    const { screen, code } = await inTerminal({ ...withoutNoColor(), NO_COLOR: '1' });

    expect(code).toBe(0);
    for (const code of COLORS) expect(screen).not.toContain(code);
    expect(screen).toContain(CLEAR_LINE);
    expect(screen).toContain('ralph: round 2/256 reported complete: round 2 finished the work');
  });

  it('draws no colours under NODE_DISABLE_COLORS, as Node decides', async () => {
    const { screen, code } = await inTerminal({ ...withoutNoColor(), NODE_DISABLE_COLORS: '1' });

    expect(code).toBe(0);
    for (const code of COLORS) expect(screen).not.toContain(code);
    expect(screen).toContain(CLEAR_LINE);
  });

  it('on a dumb terminal draws no live line and no colours: one plain line per event', async () => {
    const { screen, code } = await inTerminal({ ...withoutNoColor(), TERM: 'dumb' });

    expect(code).toBe(0);
    expect(screen).not.toContain(CLEAR_LINE);
    for (const code of COLORS) expect(screen).not.toContain(code);
    expect(screen).toContain('ralph: round 2/256 reported complete: round 2 finished the work');
  });
});
