import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../fixtures/cli-agents/harness.js';
import {
  type AskingRun,
  askFolders,
  BLOCKER,
  cleanUpAskingRuns,
  startAskingRun,
  waitForQuestion,
} from '../support/asking-run.js';

afterEach(cleanUpAskingRuns);

/**
 * Waits until the recording holds the run's snapshot in `awaitingAnswer`: the question file is written a moment
 * before it (as the answer source starts), and a SIGKILL in between leaves a run whose round 1 is run again.
 */
async function recordedWaiting(run: AskingRun): Promise<void> {
  await waitUntil(
    () =>
      readFileSync(run.record, 'utf8')
        .split('\n')
        .some(
          (line) => line.includes('"type":"@xstate.snapshot"') && line.includes('"running":"awaitingAnswer"'),
        ),
    'the recording to hold the wait',
  );
}

const ANSWER_LABEL = "A person's answer to the blocker (a person wrote this, not an agent):";

describe('a run killed while it waits for an answer', () => {
  it('keeps its question; ralph answer says the process is gone; ralph resume --ask takes the answer and goes on', async () => {
    const run = await startAskingRun(['blocked', 'complete'], ['--ask']);
    const runId = await waitForQuestion(run);
    await recordedWaiting(run);
    const pid = run.child.pid as number;

    run.child.kill('SIGKILL');
    expect((await run.finished).signal).toBe('SIGKILL');
    expect(askFolders(run.home)).toEqual([runId]);

    const answered = await run.ralphToo(['answer', run.record, 'Postgres 16']);
    expect(answered.code).toBe(0);
    expect(answered.stdout).toBe(
      `Answered round 1's blocker of run ${runId}: its next round starts with the answer.\n`,
    );
    expect(answered.stderr).toBe(
      `ralph: Run ${runId}'s process ${pid} is gone; the answer is kept, and ralph resume ${run.record} will take it.\n`,
    );

    const resumed = await run.ralphToo(['resume', run.record, '--trust-recording', '--ask']);

    expect(resumed.stderr).toContain(
      `ralph resume: resuming run ${runId} waiting again for an answer to round 1's blocker\n`,
    );
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(
      'Ralph complete: the worker reported the objective complete after 2 rounds.',
    );
    expect(resumed.stderr).toContain("ralph: round 1/3's blocker was answered (ralph answer): Postgres 16\n");
    // Round 1's agent ran once, before the kill: the resumed run started only round 2's.
    expect(run.ws.promptOf(2)).toContain(`The previous round was blocked: ${BLOCKER}`);
    expect(run.ws.promptOf(2)).toContain(`${ANSWER_LABEL} Postgres 16`);
    expect(askFolders(run.home)).toEqual([]);
  });

  it('resumed without an answer, it waits again and asks again; the recorded --wait-for-answers holds', async () => {
    const run = await startAskingRun(['blocked', 'complete'], ['--wait-for-answers', '1s']);
    const runId = await waitForQuestion(run);
    await recordedWaiting(run);
    run.child.kill('SIGKILL');
    await run.finished;

    // No --ask here: the recording keeps the run's own.
    const resumed = await run.ralphToo(['resume', run.record, '--trust-recording']);

    expect(resumed.code).toBe(3);
    expect(resumed.stderr).toContain(
      `ralph: Waiting up to 1s for an answer. Answer with: ralph answer ${runId} `,
    );
    expect(resumed.stdout).toContain("Nobody answered round 1's blocker within 1s; the run ended blocked.");
    expect(run.ws.pidOf(2)).toBeUndefined();
    expect(askFolders(run.home)).toEqual([]);
  });

  it('--wait-for-answers given to ralph resume replaces the recorded wait', async () => {
    const run = await startAskingRun(['blocked', 'complete'], ['--ask']);
    await waitForQuestion(run);
    await recordedWaiting(run);
    run.child.kill('SIGKILL');
    await run.finished;

    const resumed = await run.ralphToo([
      'resume',
      run.record,
      '--trust-recording',
      '--wait-for-answers',
      '1s',
    ]);

    expect(resumed.code).toBe(3);
    expect(resumed.stderr).toContain('ralph: Waiting up to 1s for an answer.');
    expect(resumed.stdout).toContain("Nobody answered round 1's blocker within 1s; the run ended blocked.");
  });
});
