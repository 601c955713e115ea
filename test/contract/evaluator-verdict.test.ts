import { describe, expect, it } from 'vitest';
import {
  type EvaluatorVerdict,
  reviewVerdict,
  verdictJsonSchema,
  verdictJsonSchemaCopy,
  verdictSchema,
} from '../../src/contract/evaluator-verdict.js';
import { reportJsonSchema, unreadableReport } from '../../src/index.js';
import { strictSchemaProblems } from './strict-json-schema.js';

const accept: EvaluatorVerdict = { verdict: 'accept', findings: [], evidence: ['npm test: 12 passed'] };
const reject: EvaluatorVerdict = { verdict: 'reject', findings: ['add.js is missing'], evidence: [] };

/** The problem the verdict rules find in `raw`, or undefined when it passes them. */
function problemOf(raw: unknown): string | undefined {
  const review = reviewVerdict(raw, Number.MAX_SAFE_INTEGER);
  return review.state === 'malformed' ? review.problem : undefined;
}

describe("the verdict rules, like the report's", () => {
  it('passes an accept with evidence and a reject with a finding, either with or without the other list', () => {
    for (const verdict of [
      accept,
      reject,
      { ...accept, findings: ['a style nit'] },
      { ...reject, evidence: ['ran npm test'] },
    ])
      expect(verdictSchema.safeParse(verdict)).toEqual({ success: true, data: verdict });
  });

  it('refuses a reject without a finding and an accept without evidence', () => {
    expect(problemOf({ ...reject, findings: [] })).toBe('findings: a reject verdict must name a finding');
    expect(problemOf({ ...accept, evidence: [] })).toBe('evidence: an accept verdict must carry evidence');
  });

  it('refuses blank entries in either list, naming each', () => {
    expect(problemOf({ ...accept, findings: [' '], evidence: ['ok', '\n\t'] })).toBe(
      'findings.0: findings entries must not be empty; evidence.1: evidence entries must not be empty',
    );
    // One blank finding is no finding: a reject still fails.
    expect(problemOf({ ...reject, findings: [''] })).toBe('findings.0: findings entries must not be empty');
  });

  it('refuses extra fields', () => {
    expect(problemOf({ ...accept, confidence: 0.9 })).toBe('Unrecognized key: "confidence"');
  });

  it('refuses wrong types and missing fields, saying what was expected', () => {
    expect(problemOf({ ...accept, verdict: 'maybe' })).toBe(
      'verdict: Invalid option: expected one of "accept"|"reject"',
    );
    expect(problemOf({ ...accept, findings: 'none' })).toBe(
      'findings: Invalid input: expected array, received string',
    );
    expect(problemOf({ ...accept, evidence: [1] })).toBe(
      'evidence.0: Invalid input: expected string, received number',
    );
    expect(problemOf({ verdict: 'accept', evidence: ['ok'] })).toBe(
      'findings: Invalid input: expected array, received undefined',
    );
    expect(problemOf('accept')).toBe('Invalid input: expected object, received string');
    expect(problemOf([accept])).toBe('Invalid input: expected object, received array');
  });
});

describe('reviewVerdict: an evaluator output reviewed once, as a report is', () => {
  it.each([undefined, null])('%s is a missing verdict, without a problem of its own', (raw) => {
    expect(reviewVerdict(raw, 1_000)).toEqual({ state: 'missing' });
  });

  it("keeps an unreadable output's kind and the provider's reason", () => {
    expect(reviewVerdict(unreadableReport('missing', 'no verdict file was written'), 1_000)).toEqual({
      state: 'missing',
      problem: 'no verdict file was written',
    });
    expect(reviewVerdict(unreadableReport('malformed', 'Unexpected token } in JSON'), 1_000)).toEqual({
      state: 'malformed',
      problem: 'Unexpected token } in JSON',
    });
  });

  it('calls a verdict that breaks the rules malformed, with the rule', () => {
    expect(reviewVerdict({ ...reject, findings: [] }, 1_000)).toEqual({
      state: 'malformed',
      problem: 'findings: a reject verdict must name a finding',
    });
  });

  it('gives a verdict of exactly the cap and calls one character more oversized, escapes counted', () => {
    // A quote, a newline and a control character cost 2, 2 and 6 characters in JSON, as the handoff counts them.
    const verdict: EvaluatorVerdict = { verdict: 'reject', findings: ['"a"\nb\u0001'], evidence: [] };
    const cap = JSON.stringify(verdict).length;
    expect(cap).toBe('{"verdict":"reject","findings":["\\"a\\"\\nb\\u0001"],"evidence":[]}'.length);
    expect(reviewVerdict(verdict, cap)).toEqual({ state: 'given', verdict });
    const longer = { ...verdict, findings: [`${verdict.findings[0]}c`] };
    expect(reviewVerdict(longer, cap)).toEqual({ state: 'oversized', size: cap + 1 });
  });

  it('checks the rules before the size: a malformed verdict over the cap is malformed', () => {
    expect(reviewVerdict({ ...accept, evidence: [], extra: 'x'.repeat(100) }, 10).state).toBe('malformed');
  });

  it('gives a fitting verdict as a copy of what the evaluator wrote', () => {
    const raw = { verdict: 'accept', findings: [], evidence: ['ran npm test'] };
    const review = reviewVerdict(raw, 1_000);
    expect(review).toEqual({ state: 'given', verdict: raw });
    if (review.state === 'given') expect(review.verdict).not.toBe(raw);
  });
});

describe("the verdict's JSON Schema", () => {
  it('is draft-07, requires every field and allows no other', () => {
    expect(verdictJsonSchema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(verdictJsonSchema.type).toBe('object');
    expect(verdictJsonSchema.required).toEqual(['verdict', 'findings', 'evidence']);
    expect(verdictJsonSchema.additionalProperties).toBe(false);
    expect(verdictJsonSchema.properties).toMatchObject({
      verdict: { type: 'string', enum: ['accept', 'reject'] },
      findings: { type: 'array', items: { type: 'string' } },
      evidence: { type: 'array', items: { type: 'string' } },
    });
  });

  it("stays inside the strict structured-output subset, as the report's does", () => {
    expect(strictSchemaProblems(reportJsonSchema)).toEqual([]);
    expect(strictSchemaProblems(verdictJsonSchema)).toEqual([]);
  });

  it('would be caught leaving that subset (the check is not vacuous)', () => {
    const loose = verdictJsonSchemaCopy();
    const properties = loose.properties as Record<string, Record<string, unknown>>;
    (properties.findings as Record<string, unknown>).minItems = 1;
    loose.additionalProperties = true;
    loose.required = ['verdict'];
    expect(strictSchemaProblems(loose)).toEqual([
      '#: additionalProperties must be false',
      '#: property findings is not required',
      '#/properties/findings: keyword minItems is outside the strict subset',
      '#: property evidence is not required',
    ]);
  });

  it('carries the rules in its descriptions, for the evaluator to read', () => {
    const properties = verdictJsonSchema.properties as Record<string, { description: string }>;
    expect(properties.findings?.description).toContain('Required non-empty when reject.');
    expect(properties.evidence?.description).toContain('Required non-empty when accept.');
  });

  it('is frozen, and each copy is a fresh one its evaluator may change', () => {
    expect(Object.isFrozen(verdictJsonSchema)).toBe(true);
    const first = verdictJsonSchemaCopy();
    const second = verdictJsonSchemaCopy();
    expect(first).toEqual(verdictJsonSchema);
    expect(first).not.toBe(second);
    expect(first.properties).not.toBe(second.properties);
    expect(first.required).not.toBe(verdictJsonSchema.required);
    (first.required as string[]).pop();
    (first.properties as Record<string, unknown>).verdict = { type: 'boolean' };
    expect(second).toEqual(verdictJsonSchema);
    expect(verdictJsonSchemaCopy()).toEqual(verdictJsonSchema);
    expect(verdictJsonSchema.required).toEqual(['verdict', 'findings', 'evidence']);
  });
});
