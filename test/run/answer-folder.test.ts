import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RalphQuestion } from '../../src/contract/answers.js';
import { isRalphError } from '../../src/contract/errors.js';
import {
  answerFolderSource,
  askFolderOf,
  leaveAnswer,
  processIsAlive,
  readQuestion,
} from '../../src/run/answer-folder.js';

const folders: string[] = [];

afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function stateDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-asks-'));
  folders.push(dir);
  return dir;
}

const question = (round = 1): RalphQuestion => ({
  runId: 'run_Answer-1',
  round,
  maxRounds: 5,
  question: 'Which database should the migration target?',
  report: {
    status: 'blocked',
    summary: 'stuck',
    evidence: [],
    nextSteps: [],
    blocker: 'Which database should the migration target?',
  },
  waitMs: 60_000,
});

/** Waits (on the file system, polled) until the run's question file is there: the source has started waiting. */
const questionWritten = (dir: string, runId = 'run_Answer-1') =>
  vi.waitFor(() => expect(readQuestion(runId, dir)).toBeDefined(), { timeout: 5_000, interval: 10 });

const refusal = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    if (isRalphError(error) && error.code === 'refused') return error.message;
    throw error;
  }
  throw new Error('not refused');
};

describe('answerFolderSource: a local run waits in ~/.ralph/asks/<run id> for the answer another process leaves', () => {
  it('writes the question, takes the answer ralph answer leaves, then removes the folder', async () => {
    const dir = await stateDir();
    const waiting = answerFolderSource({ stateDir: dir, recording: '/tmp/run.jsonl', pollMs: 20 })(
      question(),
      new AbortController().signal,
    );
    await questionWritten(dir);
    expect(readQuestion('run_Answer-1', dir)).toMatchObject({
      runId: 'run_Answer-1',
      round: 1,
      maxRounds: 5,
      question: 'Which database should the migration target?',
      waitMs: 60_000,
      pid: process.pid,
      recording: '/tmp/run.jsonl',
    });

    leaveAnswer('run_Answer-1', { kind: 'answer', text: 'Postgres 16', by: 'ralph answer' }, dir);

    await expect(waiting).resolves.toEqual({ kind: 'answer', text: 'Postgres 16', by: 'ralph answer' });
    expect(existsSync(askFolderOf('run_Answer-1', dir))).toBe(false);
  });

  it("ignores an answer to another round's question (void, removed) and waits on for its own", async () => {
    const dir = await stateDir();
    const waiting = answerFolderSource({ stateDir: dir, pollMs: 20 })(
      question(2),
      new AbortController().signal,
    );
    await questionWritten(dir);
    const answerFile = join(askFolderOf('run_Answer-1', dir), 'answer.json');
    writeFileSync(
      answerFile,
      JSON.stringify({ runId: 'run_Answer-1', round: 1, answer: { kind: 'answer', text: 'too late' } }),
    );
    await vi.waitFor(() => expect(existsSync(answerFile)).toBe(false), { timeout: 5_000, interval: 10 });
    const settled = vi.fn();
    waiting.then(settled, settled);
    await Promise.resolve();
    expect(settled).not.toHaveBeenCalled();

    leaveAnswer('run_Answer-1', { kind: 'give-up' }, dir);
    await expect(waiting).resolves.toEqual({ kind: 'give-up' });
  });

  it('takes at once an answer left before it waited (a killed run answered meanwhile)', async () => {
    const dir = await stateDir();
    // The killed run's question, as it left it: its process gone.
    const folder = askFolderOf('run_Answer-1', dir);
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'question.json'),
      JSON.stringify({
        runId: 'run_Answer-1',
        round: 1,
        maxRounds: 5,
        question: 'Which database should the migration target?',
        waitMs: 60_000,
        askedAt: Date.now(),
        pid: 2_147_483_000,
      }),
    );
    expect(processIsAlive(2_147_483_000)).toBe(false);
    leaveAnswer('run_Answer-1', { kind: 'answer', text: 'MySQL' }, dir);

    const answer = await answerFolderSource({ stateDir: dir, pollMs: 60_000 })(
      question(),
      new AbortController().signal,
    );

    expect(answer).toEqual({ kind: 'answer', text: 'MySQL' });
    expect(existsSync(folder)).toBe(false);
  });

  it('stops waiting when aborted: rejects with the reason and removes the folder', async () => {
    const dir = await stateDir();
    const controller = new AbortController();
    const waiting = answerFolderSource({ stateDir: dir, pollMs: 20 })(question(), controller.signal);
    await questionWritten(dir);

    controller.abort(new Error('cancelled'));

    await expect(waiting).rejects.toThrow('cancelled');
    expect(existsSync(askFolderOf('run_Answer-1', dir))).toBe(false);
  });

  it('refuses an id that is no run id (nothing outside the asks folder is named), and a run that waits on nothing', async () => {
    const dir = await stateDir();
    for (const bad of ['../etc', 'a/b', '', '.', 'x'.repeat(101)])
      expect(refusal(() => askFolderOf(bad, dir))).toBe(
        `Ralph cannot find a run called ${JSON.stringify(bad)}: not a run id`,
      );
    expect(refusal(() => leaveAnswer('../etc', { kind: 'give-up' }, dir))).toContain('not a run id');
    await expect(
      answerFolderSource({ stateDir: dir })({ ...question(), runId: '../x' }, new AbortController().signal),
    ).rejects.toThrow('not a run id');
    expect(refusal(() => leaveAnswer('run_Answer-1', { kind: 'give-up' }, dir))).toBe(
      'Ralph run run_Answer-1 is not waiting for an answer',
    );
    expect(existsSync(join(dir, 'asks', 'run_Answer-1'))).toBe(false);
  });
});
