import { describe, expect, it } from 'vitest';
import {
  commandText,
  guardRailProgressText,
  uncountedSpendNote,
  unfinishedRoundLine,
  verifyEnding,
} from '../../src/contract/guard-rail-messages.js';
import type { GuardRailProgressEvent, VerifyOutcome } from '../../src/contract/types.js';

const at = { runId: 'run-1', round: 3, maxRounds: 10 } as const;

describe('a command reads as a person would type it', () => {
  it('leaves a plain argument bare and quotes one with a space or a shell character anywhere in it', () => {
    expect(commandText(['npm', 'test'])).toBe('npm test');
    expect(commandText(['node', './run.js', '--grep=a,b', 'user@host:~x'])).toBe(
      'node ./run.js --grep=a,b "user@host:~x"',
    );
    expect(commandText(['sh', '-c', 'echo hi'])).toBe('sh -c "echo hi"');
    expect(commandText(['echo', 'hi;'])).toBe('echo "hi;"');
    expect(commandText(['printf', ''])).toBe('printf ""');
  });
});

describe('the line after a time limit that stopped a round', () => {
  it('names the stopped round and the round before as the final report', () => {
    expect(unfinishedRoundLine(3)).toBe(
      "Round 3 was stopped when the time ran out, before it reported; the final report is round 2's.",
    );
  });
});

describe('the note of the rounds whose spend a resumed run never heard', () => {
  it('names one round as "round N … was"', () => {
    expect(uncountedSpendNote([3])).toBe(
      "Not counted: what round 3 spent before the run's host stopped; it is unknown (the round was run again).",
    );
  });

  it('lists several rounds with commas and "and", as "rounds … were"', () => {
    expect(uncountedSpendNote([2, 5])).toBe(
      "Not counted: what rounds 2 and 5 spent before the run's host stopped; it is unknown (the rounds were run again).",
    );
    expect(uncountedSpendNote([2, 5, 7])).toBe(
      "Not counted: what rounds 2, 5 and 7 spent before the run's host stopped; it is unknown (the rounds were run again).",
    );
  });
});

describe('how a verify command ended, in a few words', () => {
  const outcome = (over: Partial<VerifyOutcome>): VerifyOutcome => ({
    exitCode: null,
    signal: null,
    timedOut: false,
    durationMs: 2_000,
    outputTail: '',
    ...over,
  });

  it('says its exit status, the signal that ended it, or its timeout', () => {
    expect(verifyEnding(outcome({ exitCode: 1 }), 60_000)).toBe('exited with status 1 after 2s');
    expect(verifyEnding(outcome({ exitCode: 0 }), 60_000)).toBe('exited with status 0 after 2s');
    expect(verifyEnding(outcome({ signal: 'SIGKILL' }), 60_000)).toBe('was ended by SIGKILL after 2s');
    expect(verifyEnding(outcome({ timedOut: true, signal: 'SIGTERM' }), 60_000)).toBe(
      'timed out after 1m and was stopped',
    );
  });

  it('says "a signal" when no signal was named', () => {
    expect(verifyEnding(outcome({}), 60_000)).toBe('was ended by a signal after 2s');
  });
});

describe('the progress line of each guard-rail event', () => {
  it('a round timeout names the flag and stops the agent', () => {
    expect(guardRailProgressText({ type: 'round-timed-out', ...at, roundTimeoutMs: 1_800_000 })).toBe(
      'timed out after 30m (--round-timeout); stopping its agent',
    );
  });

  it('a time limit names the flag and starts no round after it', () => {
    expect(guardRailProgressText({ type: 'time-limit-reached', ...at, maxWallTimeMs: 7_200_000 })).toBe(
      'the 2h time limit (--max-time) ran out; no round starts after it',
    );
  });

  it('a verify command starting is named as typed', () => {
    expect(guardRailProgressText({ type: 'verify-started', ...at, command: ['npm', 'test'] })).toBe(
      'verifying the completion with `npm test`',
    );
  });

  describe('a verify command that finished says how and the verdict', () => {
    const finished = (
      over: Partial<Extract<GuardRailProgressEvent, { type: 'verify-finished' }>>,
    ): GuardRailProgressEvent => ({
      type: 'verify-finished',
      ...at,
      command: ['npm', 'test'],
      passed: false,
      exitCode: null,
      signal: null,
      timedOut: false,
      durationMs: 4_000,
      ...over,
    });

    it.each([
      [{ exitCode: 1 }, 'verify `npm test` exited 1 after 4s: completion not accepted'],
      [{ exitCode: 0, passed: true }, 'verify `npm test` exited 0 after 4s: completion verified'],
      [
        { timedOut: true, signal: 'SIGTERM' },
        'verify `npm test` timed out after 4s: completion not accepted',
      ],
      [{ signal: 'SIGKILL' }, 'verify `npm test` ended by SIGKILL after 4s: completion not accepted'],
      [{}, 'verify `npm test` ended by a signal after 4s: completion not accepted'],
    ])('%j reads %j', (over, line) => {
      expect(guardRailProgressText(finished(over))).toBe(line);
    });
  });

  it('a usage-limit wait says how long and that a fresh agent runs the round again', () => {
    expect(
      guardRailProgressText({ type: 'limit-wait-started', ...at, waitMs: 61_000, detail: 'resets soon' }),
    ).toBe(
      'hit a usage limit; waiting 1m 1s for it to reset (--wait-on-limits), then running the round again with a fresh agent',
    );
  });

  it('an idle round counts the idle rounds allowed in a row', () => {
    expect(
      guardRailProgressText({ type: 'workspace-unchanged', ...at, idleRounds: 1, maxIdleRounds: 3 }),
    ).toBe('left the workspace unchanged (1 of 3 idle rounds allowed in a row)');
  });

  it("is null for the reference's own events, which each host words itself", () => {
    expect(guardRailProgressText({ type: 'round-started', ...at })).toBeNull();
    expect(guardRailProgressText({ type: 'child-started', ...at, childId: 'c1' })).toBeNull();
  });
});
