import { z } from 'zod';
import { reportSchema } from '../contract/round-report.js';
import { USAGE_FIELDS } from '../contract/usage.js';
import { formatIssues } from '../contract/zod-issues.js';

// The values of a recording that the report and the live page show are checked here when the recording is read: a
// recording is a file anyone may hand to `ralph report`, so what it says is data of a known shape, or it is refused.

const count = z.number().int().nonnegative();
const positive = z.number().int().positive();
const amount = z.number().finite().nonnegative();

/** Which guard rail ended a budget-limited run (RalphLimit). */
const recordedLimit = z.discriminatedUnion('kind', [
  z.looseObject({
    kind: z.literal('time'),
    maxWallTimeMs: amount,
    unfinishedRound: positive.optional(),
    unevaluatedRound: positive.optional(),
  }),
  z.looseObject({ kind: z.literal('idle'), maxIdleRounds: positive }),
  z.looseObject({ kind: z.literal('cost'), maxCostUsd: amount, spentUsd: amount }),
]);

/** The last verdict of a run's evaluator, as its envelope carries it (RalphEvaluation). */
const recordedEvaluation = z.looseObject({
  evaluator: z.string(),
  round: positive,
  verdict: z.enum(['accept', 'reject']),
  findings: z.array(z.string()),
  evidence: z.array(z.string()),
  evaluatorsStarted: positive,
});

/** A settled run's envelope (RalphEnvelope); fields a later ralph adds pass. */
const recordedEnvelope = z.looseObject({
  runId: z.string(),
  agentsStarted: count,
  result: z.looseObject({
    status: z.enum(['complete', 'blocked', 'budget-limited']),
    rounds: count,
    report: reportSchema,
    limit: recordedLimit.optional(),
    verifiedBy: z.array(z.string()).optional(),
    evaluation: recordedEvaluation.optional(),
  }),
});

/** A failure, refusal or cancellation (RalphFailure). */
const recordedFailure = z.looseObject({
  code: z.enum(['refused', 'workflow-failed', 'child-failed', 'cancelled']),
  message: z.string(),
  round: positive.optional(),
  lastHandoff: reportSchema.nullable().optional(),
  detail: z.string().optional(),
});

/** The run machine's output: the envelope, or the failure (RunEnding's result). */
const recordedRunResult = z.discriminatedUnion('ok', [
  z.looseObject({ ok: z.literal(true), envelope: recordedEnvelope }),
  z.looseObject({ ok: z.literal(false), failure: recordedFailure }),
]);

/**
 * What is wrong with a recorded snapshot's output and handoff, the values a run's ending and rounds are drawn from;
 * undefined when both are of their shape (or absent, as in a promise actor's snapshot).
 */
export function recordedSnapshotProblem(snapshot: Record<string, unknown>): string | undefined {
  if (snapshot.output !== undefined) {
    const output = recordedRunResult.safeParse(snapshot.output);
    if (!output.success)
      return `has a snapshot whose output is not a run's result (${formatIssues(output.error)})`;
  }
  const context = snapshot.context;
  const handoff =
    typeof context === 'object' && context !== null ? (context as { handoff?: unknown }).handoff : null;
  if (handoff !== undefined && handoff !== null) {
    const report = reportSchema.safeParse(handoff);
    if (!report.success)
      return `has a snapshot whose handoff is not a report (${formatIssues(report.error)})`;
  }
  return undefined;
}

/**
 * The most changed files an evaluation's recorded outcome may name, and the longest name: a path within PATH_MAX
 * (4096) and what happened to it (` (removed)`). Past them the line is no evaluation the watch could have made.
 */
export const MAX_RECORDED_CHANGED_FILES = 100_000;
const MAX_CHANGED_FILE_CHARS = 4096 + ' (removed)'.length;

/** What an agent said it used (RalphUsage as usageOf keeps it): known fields, each a finite non-negative number. */
const recordedUsage = z
  .strictObject(Object.fromEntries(USAGE_FIELDS.map((field) => [field, amount.optional()])))
  .nullable();

/**
 * What `awaitVerdict` resolved with (EvaluationOutcome): the evaluator's output stays raw (the machine reviews it as
 * it did live), what it said it used and what it changed in the workspace are checked, for the machine counts the
 * one and fails the run naming the other.
 */
const recordedEvaluationOutcome = z.looseObject({
  output: z.unknown(),
  usage: recordedUsage,
  changedFiles: z.array(z.string().max(MAX_CHANGED_FILE_CHARS)).max(MAX_RECORDED_CHANGED_FILES),
});

/**
 * What `awaitAnswer` resolved with (AnswerOutcome): a person's answer (its text, and who gave it), a give-up, or the
 * source's own timeout. The pages show the answer and who gave it, so both are text (a library host's own source may
 * give any length: the machine bounds the answer in the handoff, not here).
 */
const recordedAnswerOutcome = z.discriminatedUnion('kind', [
  z.looseObject({ kind: z.literal('answer'), text: z.string(), by: z.string().optional() }),
  z.looseObject({ kind: z.literal('give-up'), by: z.string().optional() }),
  z.looseObject({ kind: z.literal('timed-out') }),
]);

/** The events that bring an evaluation's outcome and a person's answer to the run's machine. */
const VERDICT_DONE = 'xstate.done.actor.awaitVerdict';
const ANSWER_DONE = 'xstate.done.actor.awaitAnswer';

/**
 * What is wrong with a recorded event the machine takes values from, or undefined: an evaluation's outcome and a
 * person's answer must be of their shape (other events' values are reviewed by the machine itself, as they were live).
 */
export function recordedEventProblem(event: { type: string; output?: unknown }): string | undefined {
  if (event.type === ANSWER_DONE) {
    const answer = recordedAnswerOutcome.safeParse(event.output);
    return answer.success ? undefined : `has an answer that is not one (${formatIssues(answer.error)})`;
  }
  if (event.type !== VERDICT_DONE) return undefined;
  const outcome = recordedEvaluationOutcome.safeParse(event.output);
  return outcome.success
    ? undefined
    : `has an evaluation outcome that is not one (${formatIssues(outcome.error)})`;
}
