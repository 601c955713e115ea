import { z } from 'zod';
import { reportSchema } from '../contract/round-report.js';
import { formatIssues } from '../contract/zod-issues.js';

// The values of a recording that the report and the live page show are checked here when the recording is read: a
// recording is a file anyone may hand to `ralph report`, so what it says is data of a known shape, or it is refused.

const count = z.number().int().nonnegative();
const positive = z.number().int().positive();
const amount = z.number().finite().nonnegative();

/** Which guard rail ended a budget-limited run (RalphLimit). */
const recordedLimit = z.discriminatedUnion('kind', [
  z.looseObject({ kind: z.literal('time'), maxWallTimeMs: amount }),
  z.looseObject({ kind: z.literal('idle'), maxIdleRounds: positive }),
  z.looseObject({ kind: z.literal('cost'), maxCostUsd: amount, spentUsd: amount }),
]);

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
