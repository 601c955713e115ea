import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { TERMINAL_ANSWER_CLOSED, TERMINAL_ANSWER_PROMPT } from '../../src/contract/answer-messages.js';
import { WORKFLOW_CANCELLED } from '../../src/index.js';
import { CLI, makeWorkspace, ralph, waitUntil } from '../fixtures/cli-agents/harness.js';
import {
  BLOCKER,
  cleanUpAskingRuns,
  runArgs,
  temporaryHome,
  waitForQuestion,
} from '../support/asking-run.js';
import { cleanEnv } from '../support/processes.js';
import { hasScript } from '../support/terminal.js';

afterEach(cleanUpAskingRuns);

const ANSWER_LABEL = "A person's answer to the blocker (a person wrote this, not an agent):";

/** The screen without its colours and line redraws: what a person reads. */
const plain = (screen: string): string =>
  screen.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, 'g'), '').replace(/\r/g, '');

/**
 * `ralph run --ask` in a pseudo-terminal (util-linux `script`): its stdin is the terminal, whose keyboard is what
 * the test writes to `script`'s stdin; the screen is everything it drew there.
 */
async function runInTerminal(
  { ask, background }: { ask: string[]; background: boolean } = { ask: ['--ask'], background: false },
) {
  const ws = await makeWorkspace(['blocked', 'complete']);
  const home = await temporaryHome();
  const env = cleanEnv({ HOME: home, TERM: 'xterm' });
  const ralphCommand = quote([process.execPath, CLI, ...runArgs(ws, join(home, 'run.jsonl'), ask)]);
  // In the background of a shell with job control, as `ralph run --ask … &` typed at a prompt: its own process
  // group, not the terminal's.
  const command = background ? quote(['bash', '-c', `set -m; ${ralphCommand} & wait $!`]) : ralphCommand;
  const terminal = spawn('script', ['-qfec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  terminal.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    screen += chunk;
  });
  const finished = new Promise<number | null>((resolve) => terminal.on('close', (code) => resolve(code)));
  const cleanup = async () => {
    if (terminal.exitCode === null) terminal.kill('SIGKILL');
    await ws.cleanup();
  };
  return { ws, home, env, terminal, finished, screen: () => plain(screen), cleanup };
}

/** Waits for the terminal's prompt and the question file; returns the run id the question names. */
async function prompted(run: Awaited<ReturnType<typeof runInTerminal>>): Promise<string> {
  await waitUntil(() => run.screen().includes(TERMINAL_ANSWER_PROMPT), 'the terminal prompt');
  return waitForQuestion({
    stderrSoFar: run.screen,
    askFolder: (runId) => join(run.home, '.ralph', 'asks', runId),
  });
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

describe.skipIf(!hasScript)('ralph run --ask at a terminal', () => {
  it('prints the question and takes the line typed at the terminal as the answer (an empty line is ignored)', async () => {
    const run = await runInTerminal();
    cleanups.push(run.cleanup);
    await prompted(run);
    expect(run.screen()).toContain(`ralph: Round 1 is blocked and asks: ${BLOCKER}\n`);

    run.terminal.stdin.write('\nUse the staging key\n');

    expect(await run.finished).toBe(0);
    expect(run.screen()).toContain(
      "ralph: round 1/3's blocker was answered (terminal): Use the staging key\n",
    );
    expect(run.screen()).toContain(
      'Ralph complete: the worker reported the objective complete after 2 rounds.',
    );
    expect(run.ws.promptOf(2)).toContain(`${ANSWER_LABEL} Use the staging key`);
  });

  it('Ctrl-D stops reading the terminal; an answer from ralph answer still counts', async () => {
    const run = await runInTerminal();
    cleanups.push(run.cleanup);
    const runId = await prompted(run);

    run.terminal.stdin.write('\x04');
    await waitUntil(() => run.screen().includes(TERMINAL_ANSWER_CLOSED), 'the terminal to be let go');
    const answered = await ralph(['answer', runId, 'Postgres 16'], { env: run.env });

    expect(answered.code).toBe(0);
    expect(await run.finished).toBe(0);
    expect(run.screen()).toContain("ralph: round 1/3's blocker was answered (ralph answer): Postgres 16\n");
    expect(run.ws.promptOf(2)).toContain(`${ANSWER_LABEL} Postgres 16`);
  });

  it('answered by ralph answer while the terminal is read: the terminal is let go, and the run ends', async () => {
    const run = await runInTerminal();
    cleanups.push(run.cleanup);
    const runId = await prompted(run);

    expect((await ralph(['answer', runId, 'MySQL 8'], { env: run.env })).code).toBe(0);

    // Nothing typed, the terminal still open: the run must not wait on it to exit.
    expect(await run.finished).toBe(0);
    expect(run.ws.promptOf(2)).toContain(`${ANSWER_LABEL} MySQL 8`);
  });

  it('a run in the background never reads the terminal (it would be stopped): its wait runs out as without one', async () => {
    const run = await runInTerminal({ ask: ['--wait-for-answers', '1s'], background: true });
    cleanups.push(run.cleanup);

    expect(await run.finished).toBe(3);
    expect(run.screen()).toContain('ralph: Waiting up to 1s for an answer.');
    expect(run.screen()).not.toContain(TERMINAL_ANSWER_PROMPT);
    expect(run.screen()).toContain("Nobody answered round 1's blocker within 1s; the run ended blocked.");
  });

  it('Ctrl-C at the prompt cancels the run (the terminal is read without raw mode): exit 130', async () => {
    const run = await runInTerminal();
    cleanups.push(run.cleanup);
    await prompted(run);

    run.terminal.stdin.write('\x03');

    expect(await run.finished).toBe(130);
    expect(run.screen()).toContain(WORKFLOW_CANCELLED);
    expect(run.ws.pidOf(2)).toBeUndefined();
    expect(readdirSync(join(run.home, '.ralph', 'asks'))).toEqual([]);
  });
});
