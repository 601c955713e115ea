import type { RalphReport } from './types.js';

/** What an evaluator's prompt is built from: the objective and the report that claims it done, nothing else. */
export interface EvaluatorPromptInput {
  objective: string;
  round: number;
  report: RalphReport;
}

/**
 * The fixed standalone evaluator prompt. It carries the immutable objective, the worker's complete report and the
 * instruction to check the workspace rather than the report's word, without changing it: no conversation and no
 * earlier evaluator's output reach an evaluator.
 */
export function renderEvaluatorPrompt({ objective, round, report }: EvaluatorPromptInput): string {
  return [
    `You are an independent evaluator in a Ralph loop. The worker of round ${round} reported the objective below`,
    'complete. Decide whether it is, from the workspace itself, your current working directory.',
    '',
    'Objective (immutable):',
    objective,
    '',
    "The worker's report (its claim, not proof):",
    JSON.stringify(report, null, 2),
    '',
    'Check the workspace, not the report: read the files the objective concerns, run the checks the project has',
    '(its tests, its build) and compare what you find with every part of the objective. A ticked checklist, a stub,',
    'a test deleted or skipped to go green, or an objective done in part is not complete.',
    '',
    'Do not change the workspace: no edits, no new files, no commits, no installs. You judge the work; you do not',
    'do it. Ralph compares the workspace before and after you, and any change fails the run.',
    '',
    'Answer with a structured verdict:',
    '- verdict "accept" when the workspace shows the whole objective done: list the evidence you checked yourself;',
    '- verdict "reject" otherwise: list the findings, each a concrete thing missing or wrong.',
  ].join('\n');
}
