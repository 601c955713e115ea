import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RalphEnvelope, RalphEvaluation } from '../../src/index.js';
import { renderResultText, WORKER_REPORT_CAVEAT } from '../../src/index.js';
import { completeReport, continueReport } from '../support/round-reports.js';

type Result = RalphEnvelope['result'];

const envelope = (result: Partial<Result> & Pick<Result, 'status' | 'rounds'>): RalphEnvelope => ({
  runId: 'run-1',
  agentsStarted: result.rounds,
  result: { report: completeReport(), ...result },
});

const accepted = (round: number): RalphEvaluation => ({
  evaluator: 'command-evaluator',
  round,
  verdict: 'accept',
  findings: [],
  evidence: ['add.js exports add; npm test: 3 passed'],
  evaluatorsStarted: 1,
});

const rejected = (
  round: number,
  findings = ['add.js is missing', 'no test covers add'],
): RalphEvaluation => ({
  evaluator: 'command-evaluator',
  round,
  verdict: 'reject',
  findings,
  evidence: [],
  evaluatorsStarted: round,
});

const firstLines = (text: string, count: number) => text.split('\n').slice(0, count);

describe('the result text of a run without an evaluator keeps the reference caveat', () => {
  const text = renderResultText(envelope({ status: 'complete', rounds: 2 }));

  it('labels completion as the worker report it is, caveat word for word', () => {
    expect(firstLines(text, 2)).toEqual([
      `Ralph complete: the worker reported the objective complete after 2 rounds. ${WORKER_REPORT_CAVEAT}`,
      'Rounds: 2',
    ]);
    expect(WORKER_REPORT_CAVEAT).toBe(
      'Completion and blockers are worker reports, not independent evaluation.',
    );
  });

  // The seeds sit beside the repository (../shared/seeds) on developer machines and in CI.
  const seeds = fileURLToPath(new URL('../../../shared/seeds/', import.meta.url));
  it.skipIf(!existsSync(seeds))("carries the caveat as the reference's Known Limitations word it", () => {
    const reference = readFileSync(`${seeds}ralph-tool-reference.txt`, 'utf8');
    const caveat = text.split('\n')[0]?.slice(-WORKER_REPORT_CAVEAT.length);
    expect(caveat).toBe(WORKER_REPORT_CAVEAT);
    expect(reference).toContain(caveat);
  });
});

describe('the result text of a run an independent evaluator judged', () => {
  it('says a worker reported it complete and an independent evaluator accepted it, without the caveat', () => {
    const report = completeReport('wrote add.js', ['npm test passed']);
    const text = renderResultText(
      envelope({ status: 'complete', rounds: 2, report, evaluation: accepted(2) }),
    );
    expect(text).toBe(
      [
        'Ralph complete: the worker reported the objective complete after 2 rounds, and an independent evaluator (command-evaluator) accepted it.',
        'Rounds: 2',
        '',
        'Final report:',
        JSON.stringify(report, null, 2),
      ].join('\n'),
    );
    expect(text).not.toContain(WORKER_REPORT_CAVEAT);
  });

  it('names the verify command before the evaluator when both accepted it', () => {
    const text = renderResultText(
      envelope({ status: 'complete', rounds: 1, verifiedBy: ['npm', 'test'], evaluation: accepted(1) }),
    );
    expect(text.split('\n')[0]).toBe(
      'Ralph complete: the worker reported the objective complete after 1 round, the verify command `npm test` confirmed it (exit 0), and an independent evaluator (command-evaluator) accepted it.',
    );
  });

  it('ends budget-limited at the cap after a rejection with the note, and the report carrying the findings', () => {
    const report = {
      ...continueReport('wrote add.js'),
      nextSteps: ['Evaluator finding: add.js is missing', 'Evaluator finding: no test covers add'],
    };
    const text = renderResultText(
      envelope({ status: 'budget-limited', rounds: 3, report, evaluation: rejected(3) }),
    );
    expect(firstLines(text, 3)).toEqual([
      'Ralph reached its 3 rounds limit; the worker reported work remaining.',
      'The completion reported in round 3 was rejected by an independent evaluator (2 findings); the final report carries its findings.',
      'Rounds: 3',
    ]);
    expect(text).toContain('"Evaluator finding: add.js is missing"');
  });

  it('leaves the note out when the last round reported work remaining after an earlier rejection', () => {
    const text = renderResultText(
      envelope({ status: 'budget-limited', rounds: 3, report: continueReport(), evaluation: rejected(2) }),
    );
    expect(firstLines(text, 2)).toEqual([
      'Ralph reached its 3 rounds limit; the worker reported work remaining.',
      'Rounds: 3',
    ]);
  });

  it('says a completion the time limit cut off before its verdict was not accepted', () => {
    const text = renderResultText(
      envelope({
        status: 'budget-limited',
        rounds: 2,
        report: continueReport(),
        limit: { kind: 'time', maxWallTimeMs: 60_000, unevaluatedRound: 2 },
      }),
    );
    expect(firstLines(text, 3)).toEqual([
      'Ralph reached its 1m time limit; the worker reported work remaining.',
      'Round 2 reported the objective complete, but the time ran out before the evaluator gave its verdict: the completion was not accepted.',
      'Rounds: 2',
    ]);
  });
});
