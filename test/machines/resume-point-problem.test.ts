import { describe, expect, test } from 'vitest';
import type { RalphResumePoint } from '../../src/machines/ralph.machine.js';
import { baseInput, evaluatorSnapshot, report, startRun } from './run-harness.js';

// A resume point is read from a recording, a file: the run checks it before anything starts, and says which part
// of it is wrong in the refusal. A sound one is taken up at the round after its last finished one.

/** How a run resumed from this point (with a 3-round cap) ends when its next round reports complete. */
async function resumed(resume: RalphResumePoint) {
  const run = startRun(baseInput({ resume }), { rounds: [{ output: report('complete') }] });
  return { output: await run.outcome(), events: run.events };
}

const refusal = async (resume: unknown) => {
  const { output } = await resumed(resume as RalphResumePoint);
  return output.ok ? 'accepted' : output.failure.message;
};

const refused = (problem: string) => `Ralph cannot resume the run: ${problem}`;
const handoff = report('continue', 'round 1 done');

describe('the finished rounds of a resume point', () => {
  test('a resume point with no finished round starts the run again at round 1', async () => {
    const { output, events } = await resumed({ round: 0, handoff: null, agentsStarted: 0 });
    expect(output).toMatchObject({ ok: true, envelope: { agentsStarted: 1, result: { rounds: 1 } } });
    expect(events[0]).toEqual({ type: 'round-started', runId: 'run-1', round: 1, maxRounds: 3 });
  });

  test('a negative or fractional count of finished rounds is refused, naming it and the round cap', async () => {
    expect(await refusal({ round: -1, handoff: null, agentsStarted: 0 })).toBe(
      refused('its finished rounds (-1) must be a whole number below the round cap 3'),
    );
    expect(await refusal({ round: 1.5, handoff, agentsStarted: 2 })).toBe(
      refused('its finished rounds (1.5) must be a whole number below the round cap 3'),
    );
  });

  test('a run with no finished round carries no handoff', async () => {
    expect(await refusal({ round: 0, handoff, agentsStarted: 0 })).toBe(
      refused('a run with no finished round has no handoff'),
    );
  });

  test('a handoff that is not a report the rules accept is refused', async () => {
    expect(await refusal({ round: 1, handoff: { status: 'continue' }, agentsStarted: 1 })).toBe(
      refused('its last handoff is not a report the rules accept'),
    );
  });
});

describe('the uncounted rounds of a resume point', () => {
  const at = (uncountedRounds: unknown) => ({ round: 1, handoff, agentsStarted: 2, uncountedRounds });

  test('every round number from 1 to the round it runs again may be uncounted', async () => {
    expect(await refusal(at([]))).toBe('accepted');
    expect(await refusal(at([1]))).toBe('accepted');
    expect(await refusal(at([1, 2]))).toBe('accepted');
  });

  test('a round number below 1, past the round it runs again, or not whole is refused, naming them', async () => {
    const problem = (list: string) =>
      refused(`its uncounted rounds (${list}) must be round numbers up to the round it runs again`);
    expect(await refusal(at([0]))).toBe(problem('0'));
    expect(await refusal(at([1, 3]))).toBe(problem('1,3'));
    expect(await refusal(at([1.5]))).toBe(problem('1.5'));
  });

  test('uncounted rounds that are not a list are refused', async () => {
    expect(await refusal(at('2'))).toBe(
      refused('its uncounted rounds (2) must be round numbers up to the round it runs again'),
    );
  });
});

describe('a resume point taken while an evaluator checked a completion', () => {
  const complete = report('complete', 'round 2 done');
  const evaluating = (uncountedRounds: unknown) => ({
    round: 2,
    handoff: complete,
    agentsStarted: 2,
    evaluating: true,
    uncountedRounds,
  });
  const evaluatedAgain = async (resume: unknown) => {
    const run = startRun(baseInput({ resume: resume as RalphResumePoint, evaluator: evaluatorSnapshot() }), {
      verdicts: [{ output: { verdict: 'accept', findings: [], evidence: ['read it'] } }],
    });
    const output = await run.outcome();
    return output.ok ? 'accepted' : output.failure.message;
  };

  test('its uncounted rounds go up to the round evaluated again, as a round boundary point allows the round run again', async () => {
    expect(await evaluatedAgain(evaluating([2]))).toBe('accepted');
    expect(await evaluatedAgain(evaluating([1, 2]))).toBe('accepted');
  });

  test('uncounted rounds past it, not whole, or not a list are refused, naming them (a recording is a file)', async () => {
    const problem = (list: string) =>
      refused(`its uncounted rounds (${list}) must be round numbers up to the round it runs again`);
    expect(await evaluatedAgain(evaluating([3]))).toBe(problem('3'));
    expect(await evaluatedAgain(evaluating([0.5]))).toBe(problem('0.5'));
    expect(await evaluatedAgain(evaluating('x'))).toBe(problem('x'));
  });
});
