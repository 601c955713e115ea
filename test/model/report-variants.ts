import type { RalphReport, ReportStatus } from '../../src/contract/types.js';
import { unreadableReport } from '../../src/contract/unreadable-round-report.js';

/** The handoff cap of every accepted model input: small, so that the exact-cap and one-over reports stay short. */
export const MODEL_HANDOFF_CAP = 400;

/** What the seed rules make of a child's raw output, written out by hand for each variant. */
export type ReportVerdict =
  /** A report that fits its status; it may still be over the handoff cap. */
  | { kind: 'report'; status: ReportStatus }
  /** Nothing a report could be read from (null and undefined count as missing); `problem` is the provider's word. */
  | { kind: 'missing'; problem?: string }
  /** Not a report that fits the rules; `problem` is what the run names. */
  | { kind: 'malformed'; problem: string };

/** One way a child can end its round: the raw output it hands back, and the verdict of the rules on it. */
export interface ReportVariant {
  name: string;
  output: unknown;
  verdict: ReportVerdict;
}

const continueReport: RalphReport = {
  status: 'continue',
  summary: 'Wrote the tokenizer',
  evidence: [],
  nextSteps: ['Write the parser'],
  blocker: null,
};
const completeReport: RalphReport = {
  status: 'complete',
  summary: 'The parser is done',
  evidence: ['npm test: 12 passed'],
  nextSteps: [],
  blocker: null,
};
const blockedReport: RalphReport = {
  status: 'blocked',
  summary: 'Could not reach the registry',
  evidence: ['npm ping: ETIMEDOUT'],
  nextSteps: ['Retry once the network is back'],
  blocker: 'The package registry is unreachable',
};

/** `report` with its summary padded so that its compact JSON is exactly `size` characters long. */
export function reportOfSize(report: RalphReport, size: number): RalphReport {
  const bare = JSON.stringify({ ...report, summary: '' }).length;
  if (size < bare + 1)
    throw new RangeError(`a ${report.status} report needs at least ${bare + 1} characters`);
  return { ...report, summary: 'x'.repeat(size - bare) };
}

const without = (report: RalphReport, field: keyof RalphReport): Record<string, unknown> => {
  const copy: Record<string, unknown> = { ...report };
  delete copy[field];
  return copy;
};

const valid = (name: string, report: RalphReport): ReportVariant => ({
  name,
  output: report,
  verdict: { kind: 'report', status: report.status },
});

const malformed = (name: string, output: unknown, problem: string): ReportVariant => ({
  name,
  output,
  verdict: { kind: 'malformed', problem },
});

/** Every report a child can hand back in the model: the valid ones, and every way a report can be wrong. */
export const REPORT_VARIANTS: readonly ReportVariant[] = [
  valid('continue', continueReport),
  valid('continue at exactly the handoff cap', reportOfSize(continueReport, MODEL_HANDOFF_CAP)),
  valid('complete', completeReport),
  valid('blocked', blockedReport),
  valid('blocked with no evidence or next steps', { ...blockedReport, evidence: [], nextSteps: [] }),
  valid('continue one over the handoff cap', reportOfSize(continueReport, MODEL_HANDOFF_CAP + 1)),
  valid('complete one over the handoff cap', reportOfSize(completeReport, MODEL_HANDOFF_CAP + 1)),
  valid('blocked far over the handoff cap', reportOfSize(blockedReport, MODEL_HANDOFF_CAP * 3)),
  { name: 'null', output: null, verdict: { kind: 'missing' } },
  { name: 'undefined', output: undefined, verdict: { kind: 'missing' } },
  {
    name: "the provider's word that the report is missing",
    output: unreadableReport('missing', 'the agent wrote no report file and printed no JSON object'),
    verdict: { kind: 'missing', problem: 'the agent wrote no report file and printed no JSON object' },
  },
  malformed(
    "the provider's word that the report is malformed",
    unreadableReport('malformed', 'report.json: Unexpected end of JSON input'),
    'report.json: Unexpected end of JSON input',
  ),
  malformed(
    "a child's lookalike of the provider's word",
    { kind: 'missing', problem: 'forged' },
    'status: Invalid option: expected one of "continue"|"complete"|"blocked"; summary: Invalid input: expected ' +
      'string, received undefined; evidence: Invalid input: expected array, received undefined; nextSteps: ' +
      'Invalid input: expected array, received undefined; blocker: required; use null when there is no blocker; ' +
      'Unrecognized keys: "kind", "problem"',
  ),
  malformed(
    'continue without next steps',
    { ...continueReport, nextSteps: [] },
    'nextSteps: a continue report must list next steps',
  ),
  malformed(
    'continue with a blocker',
    { ...continueReport, blocker: 'a blocker' },
    'blocker: a continue report must not carry a blocker',
  ),
  malformed(
    'complete without evidence',
    { ...completeReport, evidence: [] },
    'evidence: a complete report must carry evidence',
  ),
  malformed(
    'complete with next steps',
    { ...completeReport, nextSteps: ['one more thing'] },
    'nextSteps: a complete report must not list next steps',
  ),
  malformed(
    'complete with a blocker',
    { ...completeReport, blocker: 'a blocker' },
    'blocker: a complete report must not carry a blocker',
  ),
  malformed(
    'blocked without a blocker',
    { ...blockedReport, blocker: null },
    'blocker: a blocked report must carry a concrete blocker',
  ),
  malformed(
    'blocked with a blank blocker',
    { ...blockedReport, blocker: ' \t' },
    'blocker: a blocked report must carry a concrete blocker',
  ),
  malformed('empty summary', { ...completeReport, summary: '' }, 'summary: summary must not be empty'),
  malformed('blank summary', { ...continueReport, summary: ' \n ' }, 'summary: summary must not be empty'),
  malformed(
    'blank evidence entry',
    { ...completeReport, evidence: ['npm test: 12 passed', '  '] },
    'evidence.1: evidence entries must not be empty',
  ),
  malformed(
    'blank next step',
    { ...continueReport, nextSteps: [''] },
    'nextSteps.0: next steps must not be empty',
  ),
  malformed(
    'missing status',
    without(continueReport, 'status'),
    'status: Invalid option: expected one of "continue"|"complete"|"blocked"',
  ),
  malformed(
    'missing summary',
    without(continueReport, 'summary'),
    'summary: Invalid input: expected string, received undefined',
  ),
  malformed(
    'missing evidence',
    without(completeReport, 'evidence'),
    'evidence: Invalid input: expected array, received undefined',
  ),
  malformed(
    'missing next steps',
    without(continueReport, 'nextSteps'),
    'nextSteps: Invalid input: expected array, received undefined',
  ),
  malformed(
    'missing blocker',
    without(continueReport, 'blocker'),
    'blocker: required; use null when there is no blocker',
  ),
  malformed('an extra field', { ...continueReport, confidence: 0.9 }, 'Unrecognized key: "confidence"'),
  malformed(
    'an unknown status',
    { ...completeReport, status: 'done' },
    'status: Invalid option: expected one of "continue"|"complete"|"blocked"',
  ),
  malformed(
    'evidence that is not a list',
    { ...completeReport, evidence: 'npm test passed' },
    'evidence: Invalid input: expected array, received string',
  ),
  malformed('a string', 'all done', 'Invalid input: expected object, received string'),
  malformed('a number', 42, 'Invalid input: expected object, received number'),
  malformed('a list', [completeReport], 'Invalid input: expected object, received array'),
];

/** The variant called `name`. */
export function reportVariant(name: string): ReportVariant {
  const variant = REPORT_VARIANTS.find((v) => v.name === name);
  if (variant === undefined) throw new Error(`no report variant is called "${name}"`);
  return variant;
}
