import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ANSWER_CHARS, WORKFLOW_CANCELLED } from '../../src/index.js';
import { isGone, ralph } from '../fixtures/cli-agents/harness.js';
import {
  askFolders,
  BLOCKER,
  cleanUpAskingRuns,
  startAskingRun,
  temporaryHome,
  waitForQuestion,
} from '../support/asking-run.js';
import { cleanEnv } from '../support/processes.js';

afterEach(cleanUpAskingRuns);

const ANSWER_LABEL = "A person's answer to the blocker (a person wrote this, not an agent):";

describe('ralph run --ask: a blocked round asks, and ralph answer from another process answers', () => {
  it('waits on the question; ralph answer <run-id> starts round 2 with the blocked report and the answer', async () => {
    const run = await startAskingRun(['blocked', 'complete'], ['--ask']);
    const runId = await waitForQuestion(run);
    expect(run.stderrSoFar()).toContain(`ralph: Round 1 is blocked and asks: ${BLOCKER}\n`);
    expect(run.stderrSoFar()).toContain(
      `ralph: Waiting up to 1d for an answer. Answer with: ralph answer ${runId} "your answer"  (or --give-up to end it blocked)\n`,
    );
    const question = JSON.parse(readFileSync(`${run.askFolder(runId)}/question.json`, 'utf8'));
    expect(question).toMatchObject({ runId, round: 1, question: BLOCKER, recording: run.record });

    const answered = await run.ralphToo(['answer', runId, 'Use the staging key in ~/.config/staging.env']);
    expect(answered).toMatchObject({ code: 0, stderr: '' });
    expect(answered.stdout).toBe(
      `Answered round 1's blocker of run ${runId}: its next round starts with the answer.\n`,
    );

    const out = await run.finished;
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(
      'Ralph complete: the worker reported the objective complete after 2 rounds.',
    );
    expect(out.stderr).toContain(
      "ralph: round 1/3's blocker was answered (ralph answer): Use the staging key in ~/.config/staging.env\n",
    );
    expect(run.ws.promptOf(2)).toContain(`The previous round was blocked: ${BLOCKER}`);
    expect(run.ws.promptOf(2)).toContain(`${ANSWER_LABEL} Use the staging key in ~/.config/staging.env`);
    // The wait is over: its folder is gone, and a late answer is refused.
    expect(askFolders(run.home)).toEqual([]);
    const late = await run.ralphToo(['answer', runId, 'again']);
    expect(late).toMatchObject({ code: 2, stdout: '' });
    expect(late.stderr).toBe(`Ralph run ${runId} is not waiting for an answer\n`);
  });

  it('ralph answer takes the recording in place of the run id', async () => {
    const run = await startAskingRun(['blocked', 'complete'], ['--wait-for-answers', '10m']);
    const runId = await waitForQuestion(run);
    expect(run.stderrSoFar()).toContain('ralph: Waiting up to 10m for an answer.');

    expect((await run.ralphToo(['answer', run.record, 'Postgres 16'])).code).toBe(0);

    expect((await run.finished).code).toBe(0);
    expect(run.ws.promptOf(2)).toContain(`${ANSWER_LABEL} Postgres 16`);
    expect(askFolders(run.home)).not.toContain(runId);
  });

  it('ralph answer --give-up ends the run blocked now, saying a person chose not to answer', async () => {
    const run = await startAskingRun(['blocked', 'complete'], ['--ask']);
    const runId = await waitForQuestion(run);

    const gaveUp = await run.ralphToo(['answer', runId, '--give-up']);
    expect(gaveUp.code).toBe(0);
    expect(gaveUp.stdout).toBe(
      `Told run ${runId} that nobody will answer round 1's blocker: it ends blocked.\n`,
    );

    const out = await run.finished;
    expect(out.code).toBe(3);
    expect(out.stdout).toContain("A person chose not to answer round 1's blocker; the run ended blocked.");
    expect(out.stderr).toContain(
      'ralph: round 1/3: stopped waiting for an answer, a person chose not to answer\n',
    );
    expect(run.ws.pidOf(2)).toBeUndefined();
    expect(askFolders(run.home)).toEqual([]);
  });

  it('unanswered within --wait-for-answers 2s: ends blocked (exit 3) with the unanswered line', async () => {
    const run = await startAskingRun(['blocked', 'complete'], ['--wait-for-answers', '2s', '--json']);
    await waitForQuestion(run);

    const out = await run.finished;

    expect(out.code).toBe(3);
    const envelope = JSON.parse(out.stdout);
    expect(envelope.result).toMatchObject({
      status: 'blocked',
      rounds: 1,
      question: { round: 1, reason: 'timed-out', waitMs: 2000 },
    });
    expect(out.stderr).toContain(
      'ralph: round 1/3: stopped waiting for an answer, nobody answered within 2s\n',
    );
    expect(run.ws.pidOf(2)).toBeUndefined();
    expect(askFolders(run.home)).toEqual([]);
  });

  it('the unanswered line is in the result text', async () => {
    const run = await startAskingRun(['blocked'], ['--wait-for-answers', '1s']);
    await waitForQuestion(run);
    const out = await run.finished;
    expect(out.code).toBe(3);
    expect(out.stdout).toContain("Nobody answered round 1's blocker within 1s; the run ended blocked.");
  });

  it('Ctrl-C (SIGINT) while it waits cancels at once: exit 130, no agent left, the question folder gone', async () => {
    const run = await startAskingRun(['blocked', 'complete'], ['--ask']);
    const runId = await waitForQuestion(run);
    const agent = run.ws.pidOf(1) as number;

    run.child.kill('SIGINT');
    const out = await run.finished;

    expect(out.code).toBe(130);
    expect(out.stderr.trimEnd().split('\n').at(-1)).toBe(WORKFLOW_CANCELLED);
    expect(out.stdout).toBe('');
    expect(isGone(agent)).toBe(true);
    expect(existsSync(run.askFolder(runId))).toBe(false);
    expect(run.ws.pidOf(2)).toBeUndefined();
  });
});

describe('ralph answer refuses what no run can take (exit 2), and a run without --ask is unchanged', () => {
  it('refuses an empty or too long answer, both or neither of text and --give-up, leaving the run waiting', async () => {
    const run = await startAskingRun(['blocked', 'complete'], ['--ask']);
    const runId = await waitForQuestion(run);
    const refusals: [string[], string][] = [
      [['answer', runId, '   '], 'Ralph cannot take an empty answer'],
      [
        ['answer', runId, 'x'.repeat(MAX_ANSWER_CHARS + 1)],
        `Ralph cannot take an answer of ${MAX_ANSWER_CHARS + 1} characters: at most ${MAX_ANSWER_CHARS}`,
      ],
      [['answer', runId, 'yes', '--give-up'], 'ralph answer takes an answer or --give-up, not both'],
      [['answer', runId], 'ralph answer needs the answer text, or --give-up to end the run blocked'],
      [
        ['answer', 'no/such/run.jsonl', 'yes'],
        'ralph answer: "no/such/run.jsonl" is neither a run id nor a run\'s recording (no such file)',
      ],
      [
        ['answer', '/etc/passwd', 'yes'],
        'ralph answer: "/etc/passwd" is neither a run id nor a run\'s recording (the file is not a run\'s recording)',
      ],
    ];
    for (const [args, message] of refusals) {
      const out = await run.ralphToo(args);
      expect({ args: args.slice(1, 2), ...out }).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `${message}\n`,
      });
    }
    expect(existsSync(`${run.askFolder(runId)}/answer.json`)).toBe(false);

    await run.ralphToo(['answer', runId, '--give-up']);
    expect((await run.finished).code).toBe(3);
  });

  it('refuses a run that waits on nothing', async () => {
    const home = await temporaryHome();
    const out = await ralph(['answer', 'V1StGXR8_Z5jdHi6B-myT', 'yes'], { env: cleanEnv({ HOME: home }) });
    expect(out).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'Ralph run V1StGXR8_Z5jdHi6B-myT is not waiting for an answer\n',
    });
  });

  it('refuses a bad --wait-for-answers before anything starts', async () => {
    const run = await startAskingRun(['blocked'], ['--wait-for-answers', 'soon']);
    const out = await run.finished;
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('--wait-for-answers must');
    expect(run.ws.noAgentStarted()).toBe(true);
  });

  it('without --ask a blocked round ends the run: no question, no ask folder, no ask option recorded', async () => {
    const run = await startAskingRun(['blocked', 'complete'], []);
    const out = await run.finished;
    expect(out.code).toBe(3);
    expect(out.stderr).not.toContain('asks');
    expect(out.stdout).not.toContain('answer');
    expect(askFolders(run.home)).toEqual([]);
    const header = JSON.parse(readFileSync(run.record, 'utf8').split('\n')[0] as string);
    expect(Object.keys(header.host.ralphRun).sort()).toEqual(['agentCommand', 'cwd', 'maxRounds']);
  });
});
