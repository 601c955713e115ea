import { z } from 'zod';
import { copyJson } from './json-copy.js';
import { isUnreadableReport } from './unreadable-round-report.js';
import { formatIssues } from './zod-issues.js';

/** What an independent evaluator answers after checking a reported completion in the workspace. */
export interface EvaluatorVerdict {
  /** accept: the workspace shows the objective done; reject: it does not. */
  verdict: 'accept' | 'reject';
  /** What is missing or wrong; at least one when the verdict is reject. */
  findings: string[];
  /** What the evaluator checked itself; at least one when the verdict is accept. */
  evidence: string[];
}

/**
 * The verdict's shape alone, free of refinements like the report's, so its JSON Schema stays inside what strict
 * structured-output modes accept; the rules are in the descriptions and enforced by `verdictSchema` on receipt.
 */
const verdictShape = z.strictObject({
  verdict: z
    .enum(['accept', 'reject'])
    .describe(
      'accept: you checked the workspace and it shows the whole objective done; reject: it does not, in any part.',
    ),
  findings: z
    .array(z.string())
    .describe(
      'What is missing or wrong, each a concrete observation from the workspace. Required non-empty when reject.',
    ),
  evidence: z
    .array(z.string())
    .describe(
      'What you checked yourself (files read, commands run and their results). Required non-empty when accept.',
    ),
});

const isBlank = (text: string): boolean => text.trim().length === 0;

/**
 * The verdict with its rules, like the report's: a reject names at least one finding, an accept at least one piece
 * of evidence; no entry is blank; no extra fields.
 */
export const verdictSchema = verdictShape.superRefine((verdict, ctx) => {
  for (const field of ['findings', 'evidence'] as const)
    verdict[field].forEach((item, i) => {
      if (isBlank(item))
        ctx.addIssue({ code: 'custom', path: [field, i], message: `${field} entries must not be empty` });
    });
  if (verdict.verdict === 'reject' && verdict.findings.length === 0)
    ctx.addIssue({ code: 'custom', path: ['findings'], message: 'a reject verdict must name a finding' });
  if (verdict.verdict === 'accept' && verdict.evidence.length === 0)
    ctx.addIssue({ code: 'custom', path: ['evidence'], message: 'an accept verdict must carry evidence' });
});

/** The verdict's JSON Schema (draft-07, every field required, no extra fields) handed to every evaluator. */
export const verdictJsonSchema: Record<string, unknown> = Object.freeze(
  z.toJSONSchema(verdictShape, { target: 'draft-7' }) as Record<string, unknown>,
);

/** A fresh copy of the verdict's JSON Schema, each evaluator's own to keep or change. */
export function verdictJsonSchemaCopy(): Record<string, unknown> {
  return copyJson(verdictJsonSchema) as Record<string, unknown>;
}

/** The run's review of one evaluator's raw output: plain data, for the machine's context and guards. */
export type VerdictReview =
  /** Nothing a verdict could be read from; `problem` is the provider's reason, when it gave one. */
  | { state: 'missing'; problem?: string }
  /** Not a verdict that fits the rules; `problem` says what is wrong. */
  | { state: 'malformed'; problem: string }
  /** A verdict that fits the rules but is `size` characters, over the handoff cap. */
  | { state: 'oversized'; size: number }
  /** A verdict that fits the rules and the cap. */
  | { state: 'given'; verdict: EvaluatorVerdict };

/**
 * Reviews an evaluator's raw output once, as a report is reviewed: a provider's unreadable output keeps its kind and
 * reason, nothing at all is missing, anything else is checked against the verdict rules, then against the cap
 * (`JSON.stringify(verdict).length`, the handoff cap: the findings travel in the next handoff).
 */
export function reviewVerdict(raw: unknown, maxChars: number): VerdictReview {
  if (isUnreadableReport(raw)) {
    const problem = String(raw.problem);
    return raw.kind === 'missing' ? { state: 'missing', problem } : { state: 'malformed', problem };
  }
  if (raw === undefined || raw === null) return { state: 'missing' };
  const parsed = verdictSchema.safeParse(raw);
  if (!parsed.success) return { state: 'malformed', problem: formatIssues(parsed.error) };
  const size = JSON.stringify(parsed.data).length;
  return size > maxChars ? { state: 'oversized', size } : { state: 'given', verdict: parsed.data };
}
