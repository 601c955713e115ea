import { z } from 'zod';
import { copyJson } from './json-copy.js';
import type { RalphReport } from './types.js';
import { formatIssues } from './zod-issues.js';

/** The problem of a report without a blocker field. */
export const BLOCKER_REQUIRED = 'required; use null when there is no blocker';

/**
 * The report's shape alone: what a child's structured-output channel can enforce. Kept free of refinements so
 * its JSON Schema stays inside the subset strict structured-output modes accept (no if/then, no minLength);
 * the status rules are carried by the descriptions and enforced by `reportSchema` on receipt.
 */
const reportShape = z.strictObject({
  status: z
    .enum(['continue', 'complete', 'blocked'])
    .describe(
      'continue: more work remains; complete: the objective is done; blocked: a concrete blocker stops the work.',
    ),
  summary: z.string().describe('What this round did and found. Must not be empty.'),
  evidence: z
    .array(z.string())
    .describe(
      'Checks that show the work is done (commands run and their results, files written). Required non-empty when complete.',
    ),
  nextSteps: z
    .array(z.string())
    .describe(
      'What the next fresh round should do. Required non-empty when continue; must be empty when complete.',
    ),
  blocker: z
    // A report that leaves blocker out is told that null is the way to say "none" (zod's own text says neither).
    .string({ error: (issue) => (issue.input === undefined ? BLOCKER_REQUIRED : undefined) })
    .nullable()
    .describe('The concrete blocker when blocked; null when continue or complete.'),
});

const isBlank = (text: string): boolean => text.trim().length === 0;

/**
 * The round report with the status rules of the reference: a continue report lists next steps and carries no
 * blocker; a complete report carries evidence, no next steps and no blocker; a blocked report carries a concrete
 * blocker. The summary is never blank, and no listed step or piece of evidence is blank either (a blank entry is
 * not a step). No extra fields.
 */
export const reportSchema = reportShape.superRefine((report, ctx) => {
  if (isBlank(report.summary))
    ctx.addIssue({ code: 'custom', path: ['summary'], message: 'summary must not be empty' });
  report.evidence.forEach((item, i) => {
    if (isBlank(item))
      ctx.addIssue({ code: 'custom', path: ['evidence', i], message: 'evidence entries must not be empty' });
  });
  report.nextSteps.forEach((item, i) => {
    if (isBlank(item))
      ctx.addIssue({ code: 'custom', path: ['nextSteps', i], message: 'next steps must not be empty' });
  });
  switch (report.status) {
    case 'continue':
      if (report.nextSteps.length === 0)
        ctx.addIssue({
          code: 'custom',
          path: ['nextSteps'],
          message: 'a continue report must list next steps',
        });
      if (report.blocker !== null)
        ctx.addIssue({
          code: 'custom',
          path: ['blocker'],
          message: 'a continue report must not carry a blocker',
        });
      break;
    case 'complete':
      if (report.evidence.length === 0)
        ctx.addIssue({
          code: 'custom',
          path: ['evidence'],
          message: 'a complete report must carry evidence',
        });
      if (report.nextSteps.length > 0)
        ctx.addIssue({
          code: 'custom',
          path: ['nextSteps'],
          message: 'a complete report must not list next steps',
        });
      if (report.blocker !== null)
        ctx.addIssue({
          code: 'custom',
          path: ['blocker'],
          message: 'a complete report must not carry a blocker',
        });
      break;
    case 'blocked':
      if (report.blocker === null || isBlank(report.blocker))
        ctx.addIssue({
          code: 'custom',
          path: ['blocker'],
          message: 'a blocked report must carry a concrete blocker',
        });
      break;
  }
});

/** The report's JSON Schema (draft-07, every field required, no extra fields) handed to every child. */
export const reportJsonSchema: Record<string, unknown> = Object.freeze(
  z.toJSONSchema(reportShape, { target: 'draft-7' }) as Record<string, unknown>,
);

/** A fresh copy of the report's JSON Schema, each child's own to keep or change. */
export function reportJsonSchemaCopy(): Record<string, unknown> {
  return copyJson(reportJsonSchema) as Record<string, unknown>;
}

/** The serialized size of a report, as the handoff cap measures it. */
export function handoffSize(report: RalphReport): number {
  return JSON.stringify(report).length;
}

/** The outcome of checking a raw child output against the report rules. */
export type ReportCheck = { ok: true; report: RalphReport } | { ok: false; problem: string };

/** Checks a raw structured output against the report rules; never throws. */
export function checkReport(raw: unknown): ReportCheck {
  const parsed = reportSchema.safeParse(raw);
  if (parsed.success) return { ok: true, report: parsed.data };
  return { ok: false, problem: formatIssues(parsed.error) };
}

/** True when a child produced nothing a report could be read from. */
export function isMissingReport(raw: unknown): boolean {
  return raw === undefined || raw === null;
}
