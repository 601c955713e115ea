import { describe, expect, it } from 'vitest';
import {
  EVALUATOR_REJECTED_STEP,
  evaluatedCompleteLabel,
  evaluatorFindingStep,
  evaluatorFindingsCut,
  evaluatorInheritsParentContext,
  evaluatorLacksCostReports,
  evaluatorLacksStructuredOutput,
  evaluatorNotRegistered,
  lastRejectionNote,
  unevaluatedRoundLine,
} from '../../src/contract/evaluator-messages.js';
import { renderEvaluatorPrompt } from '../../src/contract/evaluator-prompt.js';
import {
  providerInheritsParentContext,
  providerLacksStructuredOutput,
  providerNotRegistered,
  type RalphReport,
  WORKER_REPORT_CAVEAT,
} from '../../src/index.js';
import { completeReport } from '../support/round-reports.js';

describe("the evaluator's labels and notes", () => {
  it('says a worker reported the completion and an independent evaluator accepted it, without the caveat', () => {
    expect(evaluatedCompleteLabel(2, 'command-evaluator')).toBe(
      'Ralph complete: the worker reported the objective complete after 2 rounds, and an independent evaluator (command-evaluator) accepted it.',
    );
    expect(evaluatedCompleteLabel(1, 'claude-evaluator')).toBe(
      'Ralph complete: the worker reported the objective complete after 1 round, and an independent evaluator (claude-evaluator) accepted it.',
    );
    expect(evaluatedCompleteLabel(2, 'command-evaluator')).not.toContain(WORKER_REPORT_CAVEAT);
  });

  it('names the verify command that confirmed it first, when there was one', () => {
    expect(evaluatedCompleteLabel(3, 'codex-evaluator', ['npm', 'test'])).toBe(
      'Ralph complete: the worker reported the objective complete after 3 rounds, the verify command `npm test` confirmed it (exit 0), and an independent evaluator (codex-evaluator) accepted it.',
    );
  });

  it('notes the last rejection after a budget-limited label, counting its findings', () => {
    expect(lastRejectionNote(3, 1)).toBe(
      'The completion reported in round 3 was rejected by an independent evaluator (1 finding); the final report carries its findings.',
    );
    expect(lastRejectionNote(2, 4)).toBe(
      'The completion reported in round 2 was rejected by an independent evaluator (4 findings); the final report carries its findings.',
    );
  });

  it('says a completion the time cut off before its verdict was not accepted', () => {
    expect(unevaluatedRoundLine(2)).toBe(
      'Round 2 reported the objective complete, but the time ran out before the evaluator gave its verdict: the completion was not accepted.',
    );
  });

  it("words the handoff's steps", () => {
    expect(EVALUATOR_REJECTED_STEP).toBe(
      'An independent evaluator checked the workspace and rejected the reported completion; address its findings:',
    );
    expect(evaluatorFindingStep('add.js is missing')).toBe('Evaluator finding: add.js is missing');
    expect(evaluatorFindingsCut(1)).toBe('… 1 more finding was cut at the handoff cap.');
    expect(evaluatorFindingsCut(3)).toBe('… 3 more findings were cut at the handoff cap.');
  });

  it("words the refusals as the reference words a provider's, naming the evaluator", () => {
    const asEvaluator = (text: string) => text.replace('subagent provider', 'evaluator provider');
    expect(evaluatorNotRegistered('x')).toBe(asEvaluator(providerNotRegistered('x')));
    expect(evaluatorLacksStructuredOutput('x')).toBe(asEvaluator(providerLacksStructuredOutput('x')));
    expect(evaluatorInheritsParentContext('x')).toBe(
      asEvaluator(providerInheritsParentContext('x')).replace('fresh provider', 'fresh evaluator'),
    );
    expect(evaluatorLacksCostReports('x')).toBe(
      'Ralph cannot hold the cost limit: evaluator provider "x" does not report what its evaluations cost. Use an evaluator that reports cost, or drop the cost limit.',
    );
  });
});

describe("the evaluator's prompt", () => {
  const objective = 'Write add.js exporting add(a, b), with tests';
  const report = completeReport('wrote add.js', ['npm test passed']);
  const prompt = renderEvaluatorPrompt({ objective, round: 2, report });

  it('holds the objective, the whole report, and the instructions to check the workspace without changing it', () => {
    expect(prompt).toContain(`\nObjective (immutable):\n${objective}\n`);
    expect(prompt).toContain(
      `\nThe worker's report (its claim, not proof):\n${JSON.stringify(report, null, 2)}\n`,
    );
    expect(prompt).toContain('The worker of round 2 reported the objective below');
    expect(prompt).toContain('Check the workspace, not the report:');
    expect(prompt).toContain(
      'Do not change the workspace: no edits, no new files, no commits, no installs. You judge the work; you do not',
    );
    expect(prompt).toContain(
      'Ralph compares the workspace before and after you, and any change fails the run.',
    );
    expect(prompt).toContain(
      '- verdict "reject" otherwise: list the findings, each a concrete thing missing or wrong.',
    );
  });

  it('depends on nothing else: no earlier verdict, finding or handoff reaches it', () => {
    const later = completeReport('fixed what the evaluator found', ['add.test.js passes']);
    const other = renderEvaluatorPrompt({ objective: 'Another objective', round: 3, report: later });
    const template = (text: string, obj: string, rep: RalphReport, round: number) =>
      text
        .replace(obj, '<objective>')
        .replace(JSON.stringify(rep, null, 2), '<report>')
        .replace(`round ${round}`, 'round <n>');
    expect(template(other, 'Another objective', later, 3)).toBe(template(prompt, objective, report, 2));
    expect(prompt).not.toContain('Evaluator finding');
    expect(prompt).not.toContain(EVALUATOR_REJECTED_STEP);
  });
});
