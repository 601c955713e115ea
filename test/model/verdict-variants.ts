import type { EvaluatorVerdict } from '../../src/contract/evaluator-verdict.js';
import { unreadableReport } from '../../src/contract/unreadable-round-report.js';
import { MODEL_HANDOFF_CAP } from './report-variants.js';

/** What the rules make of an evaluator's answer, written out by hand for each variant. */
export type VerdictRuling =
  /** A verdict that fits the rules and the handoff cap. */
  | { kind: 'given'; verdict: EvaluatorVerdict }
  /** Nothing a verdict could be read from; `problem` is the provider's word, when it gave one. */
  | { kind: 'missing'; problem?: string }
  /** Not a verdict that fits the rules; `problem` is what the run names. */
  | { kind: 'malformed'; problem: string }
  /** A verdict that fits the rules, `size` characters long: over the handoff cap. */
  | { kind: 'oversized'; size: number }
  /** The evaluator changed the workspace: the evaluation fails whatever it answered. */
  | { kind: 'changed' };

/** One way an evaluator can end its evaluation: its raw output, what it changed, and the rules' ruling. */
export interface VerdictVariant {
  name: string;
  output: unknown;
  /** The workspace's files it added, removed or changed, as the watch words them. */
  changedFiles: string[];
  ruling: VerdictRuling;
}

const ACCEPT: EvaluatorVerdict = {
  verdict: 'accept',
  findings: [],
  evidence: ['npm test: 12 passed', 'src/parser.rs parses the whole corpus'],
};
const REJECT: EvaluatorVerdict = {
  verdict: 'reject',
  findings: ['src/parser.rs is a stub that returns an empty tree', 'no test covers the parser'],
  evidence: ['read src/parser.rs'],
};

/** `verdict` with its first evidence padded so that its compact JSON is exactly `size` characters long. */
function verdictOfSize(verdict: EvaluatorVerdict, size: number): EvaluatorVerdict {
  const bare = JSON.stringify({ ...verdict, evidence: [''] }).length;
  return { ...verdict, evidence: ['x'.repeat(size - bare)] };
}

const given = (name: string, verdict: EvaluatorVerdict): VerdictVariant => ({
  name,
  output: verdict,
  changedFiles: [],
  ruling: { kind: 'given', verdict },
});

const malformed = (name: string, output: unknown, problem: string): VerdictVariant => ({
  name,
  output,
  changedFiles: [],
  ruling: { kind: 'malformed', problem },
});

/** The variant name of the one rejection a path may go on from (the others end the run where they come). */
export const REJECT_VARIANT = 'reject';

/** Every answer an evaluator can give in the model: accept, reject, and every way an evaluation can fail. */
export const VERDICT_VARIANTS: readonly VerdictVariant[] = [
  given('accept', ACCEPT),
  given(REJECT_VARIANT, REJECT),
  given('accept at exactly the handoff cap', verdictOfSize(ACCEPT, MODEL_HANDOFF_CAP)),
  {
    name: 'accept one over the handoff cap',
    output: verdictOfSize(ACCEPT, MODEL_HANDOFF_CAP + 1),
    changedFiles: [],
    ruling: { kind: 'oversized', size: MODEL_HANDOFF_CAP + 1 },
  },
  {
    name: 'accept, having changed the workspace',
    output: ACCEPT,
    changedFiles: ['src/parser.rs (changed)', 'sneaky.txt (added)'],
    ruling: { kind: 'changed' },
  },
  { name: 'null', output: null, changedFiles: [], ruling: { kind: 'missing' } },
  {
    name: "the provider's word that the verdict is missing",
    output: unreadableReport('missing', 'the evaluator wrote no verdict file and printed no JSON object'),
    changedFiles: [],
    ruling: { kind: 'missing', problem: 'the evaluator wrote no verdict file and printed no JSON object' },
  },
  malformed(
    "the provider's word that the verdict is malformed",
    unreadableReport('malformed', 'verdict.json: Unexpected end of JSON input'),
    'verdict.json: Unexpected end of JSON input',
  ),
  malformed(
    'reject without findings',
    { ...REJECT, findings: [] },
    'findings: a reject verdict must name a finding',
  ),
  malformed(
    'accept without evidence',
    { ...ACCEPT, evidence: [] },
    'evidence: an accept verdict must carry evidence',
  ),
  malformed(
    'a blank finding',
    { ...REJECT, findings: ['src/parser.rs is a stub', ' '] },
    'findings.1: findings entries must not be empty',
  ),
  malformed(
    'an unknown verdict',
    { ...ACCEPT, verdict: 'maybe' },
    'verdict: Invalid option: expected one of "accept"|"reject"',
  ),
  malformed('an extra field', { ...ACCEPT, confidence: 0.9 }, 'Unrecognized key: "confidence"'),
  malformed(
    "a worker's report instead of a verdict",
    { status: 'complete', summary: 'done', evidence: ['x'], nextSteps: [], blocker: null },
    'verdict: Invalid option: expected one of "accept"|"reject"; findings: Invalid input: expected array, ' +
      'received undefined; Unrecognized keys: "status", "summary", "nextSteps", "blocker"',
  ),
  malformed('a string', 'accept', 'Invalid input: expected object, received string'),
];

/** The variant called `name`. */
export function verdictVariant(name: string): VerdictVariant {
  const variant = VERDICT_VARIANTS.find((v) => v.name === name);
  if (variant === undefined) throw new Error(`no verdict variant is called "${name}"`);
  return variant;
}
