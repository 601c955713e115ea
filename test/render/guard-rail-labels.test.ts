import { describe, expect, it } from 'vitest';
import type { RalphEnvelope } from '../../src/index.js';
import { renderResultText } from '../../src/index.js';
import { completeReport, continueReport } from '../support/round-reports.js';

const firstLine = (result: RalphEnvelope['result']) =>
  renderResultText({ runId: 'run-1', agentsStarted: result.rounds, result }).split('\n')[0];

// The reference's budget-limited line is `Ralph reached its <n> limit; the worker reported work remaining.`; a guard
// rail that ended the run names its own limit in the same words.
describe('the result line of a run a guard rail ended', () => {
  it('names the time limit, as a duration', () => {
    const result = { status: 'budget-limited' as const, rounds: 3, report: continueReport() };
    expect(firstLine({ ...result, limit: { kind: 'time', maxWallTimeMs: 5_400_000 } })).toBe(
      'Ralph reached its 1h 30m time limit; the worker reported work remaining.',
    );
  });

  it('names the idle limit, and that the workspace did not change', () => {
    const result = { status: 'budget-limited' as const, rounds: 5, report: continueReport() };
    expect(firstLine({ ...result, limit: { kind: 'idle', maxIdleRounds: 3 } })).toBe(
      'Ralph reached its 3 idle rounds limit; the worker reported work remaining, but the workspace did not change in the last 3 rounds.',
    );
    expect(firstLine({ ...result, limit: { kind: 'idle', maxIdleRounds: 1 } })).toBe(
      'Ralph reached its 1 idle round limit; the worker reported work remaining, but the workspace did not change in the last round.',
    );
  });

  it('says a completion the verify command confirmed was confirmed, instead of the worker-report caveat', () => {
    const text = renderResultText({
      runId: 'run-1',
      agentsStarted: 1,
      result: {
        status: 'complete',
        rounds: 1,
        report: completeReport(),
        verifiedBy: ['npm', 'run', 'test:unit'],
      },
    });
    expect(text.split('\n')[0]).toBe(
      'Ralph complete: the worker reported the objective complete after 1 round, and the verify command `npm run test:unit` confirmed it (exit 0).',
    );
    expect(text).not.toContain('not independent evaluation');
  });

  it('quotes an argument of the verify command that a shell would split', () => {
    const result = {
      status: 'complete' as const,
      rounds: 2,
      report: completeReport(),
      verifiedBy: ['sh', '-c', 'npm test && npm run lint'],
    };
    expect(firstLine(result)).toContain('the verify command `sh -c "npm test && npm run lint"` confirmed it');
  });
});
