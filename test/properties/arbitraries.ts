import fc from 'fast-check';
import type { RalphEnvelope, RalphReport, RalphResultStatus } from '../../src/contract/types.js';

const REPORT_FIELDS = ['status', 'summary', 'evidence', 'nextSteps', 'blocker'] as const;

// JavaScript's trim() white space, some of it outside ASCII: all of it makes a text blank.
const WHITESPACE = [' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u2003', '\u2028', '\u3000', '\ufeff'];

/** Empty or white space only. */
export const blankText = fc.array(fc.constantFrom(...WHITESPACE), { maxLength: 4 }).map((cs) => cs.join(''));

/** Text with something other than white space in it, possibly padded with white space. */
export const nonBlankText = fc
  .tuple(
    blankText,
    fc.string({ minLength: 1, maxLength: 24, unit: 'binary' }).filter((s) => s.trim() !== ''),
    blankText,
  )
  .map(([before, core, after]) => `${before}${core}${after}`);

const notAString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
);

const entry = fc.oneof(
  { weight: 8, arbitrary: nonBlankText },
  { weight: 2, arbitrary: blankText },
  { weight: 1, arbitrary: notAString },
);

const list = fc.oneof(
  { weight: 10, arbitrary: fc.array(entry, { maxLength: 3 }) },
  { weight: 10, arbitrary: fc.array(nonBlankText, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.oneof(nonBlankText, notAString) },
);

const entries = (min: number) => fc.array(nonBlankText, { minLength: min, maxLength: 3 });

/** Reports that satisfy the rules, of every status. */
export const validReport: fc.Arbitrary<RalphReport> = fc.oneof(
  fc.record({
    status: fc.constant('continue' as const),
    summary: nonBlankText,
    evidence: entries(0),
    nextSteps: entries(1),
    blocker: fc.constant(null),
  }),
  fc.record({
    status: fc.constant('complete' as const),
    summary: nonBlankText,
    evidence: entries(1),
    nextSteps: fc.constant<string[]>([]),
    blocker: fc.constant(null),
  }),
  fc.record({
    status: fc.constant('blocked' as const),
    summary: nonBlankText,
    evidence: entries(0),
    nextSteps: entries(0),
    blocker: nonBlankText,
  }),
);

const statusLike = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom('continue', 'complete', 'blocked') },
  { weight: 1, arbitrary: fc.oneof(fc.constantFrom('done', 'Complete', ' continue', ''), notAString) },
);
const textLike = fc.oneof({ weight: 4, arbitrary: nonBlankText }, blankText, notAString);
const blockerLike = fc.oneof(
  { weight: 6, arbitrary: fc.constant(null) },
  { weight: 4, arbitrary: nonBlankText },
  { weight: 1, arbitrary: blankText },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.constant(undefined), fc.array(nonBlankText)) },
);
const extraKey = fc
  .oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'Status'))
  .filter((key) => !(REPORT_FIELDS as readonly string[]).includes(key));

/** One change to a report that may or may not break a rule. */
const perturbation: fc.Arbitrary<(report: Record<string, unknown>) => void> = fc.oneof(
  statusLike.map((v) => (r: Record<string, unknown>) => {
    r.status = v;
  }),
  textLike.map((v) => (r: Record<string, unknown>) => {
    r.summary = v;
  }),
  list.map((v) => (r: Record<string, unknown>) => {
    r.evidence = v;
  }),
  list.map((v) => (r: Record<string, unknown>) => {
    r.nextSteps = v;
  }),
  blockerLike.map((v) => (r: Record<string, unknown>) => {
    r.blocker = v;
  }),
  fc.constantFrom(...REPORT_FIELDS).map((field) => (r: Record<string, unknown>) => {
    delete r[field];
  }),
  fc.tuple(extraKey, fc.jsonValue()).map(([key, value]) => (r: Record<string, unknown>) => {
    // An own property even for "__proto__", as JSON.parse would make it.
    Object.defineProperty(r, key, { value, enumerable: true, writable: true, configurable: true });
  }),
);

/**
 * Objects shaped like a round report, near the rules' edges: valid reports with zero to three changes, each of
 * which may break a rule (a status swapped, a text blanked, an entry of the wrong kind, a field dropped, an extra
 * field added) or not. Roughly a third of them satisfy the rules.
 */
export const reportLike: fc.Arbitrary<unknown> = fc
  .tuple(validReport, fc.array(perturbation, { maxLength: 3 }))
  .map(([report, changes]) => {
    const raw: Record<string, unknown> = structuredClone(report) as unknown as Record<string, unknown>;
    for (const change of changes) change(raw);
    return raw;
  });

/** Settled envelopes of any status and round count, carrying valid reports. */
export const envelope: fc.Arbitrary<RalphEnvelope> = fc
  .record({
    runId: fc.string({ minLength: 1, maxLength: 21 }),
    status: fc.constantFrom<RalphResultStatus>('complete', 'blocked', 'budget-limited'),
    rounds: fc.integer({ min: 1, max: 256 }),
    report: validReport,
  })
  .map(({ runId, status, rounds, report }) => ({
    runId,
    agentsStarted: rounds,
    result: { status, rounds, report },
  }));
