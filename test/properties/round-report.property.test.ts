import { Ajv } from 'ajv';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  checkReport,
  handoffSize,
  isMissingReport,
  reportJsonSchema,
  reportSchema,
} from '../../src/contract/round-report.js';
import { reportLike, validReport } from './arbitraries.js';
import { satisfiesReportRules } from './round-report-rules.js';

const anything = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
});

describe('the report validator accepts exactly the reports that satisfy the rules', () => {
  test('on report-shaped objects near every rule edge', () => {
    fc.assert(
      fc.property(reportLike, (raw) => {
        expect(checkReport(raw).ok).toBe(satisfiesReportRules(raw));
        expect(reportSchema.safeParse(raw).success).toBe(satisfiesReportRules(raw));
      }),
      { numRuns: 3000 },
    );
  });

  test('on anything at all, and never throws', () => {
    fc.assert(
      fc.property(fc.oneof(anything, reportLike), (raw) => {
        const checked = checkReport(raw);
        expect(checked.ok).toBe(satisfiesReportRules(raw));
        if (!checked.ok) expect(checked.problem.trim()).not.toBe('');
      }),
      { numRuns: 3000 },
    );
  });

  test('a valid report of any status is accepted unchanged', () => {
    fc.assert(
      fc.property(validReport, (report) => {
        const copy = structuredClone(report);
        const checked = checkReport(report);
        expect(checked).toEqual({ ok: true, report: copy });
      }),
    );
  });

  test('the generator of near-reports yields both kinds', () => {
    const sample = fc.sample(reportLike, { numRuns: 1000, seed: 3 });
    const accepted = sample.filter(satisfiesReportRules).length;
    expect(accepted).toBeGreaterThan(100);
    expect(accepted).toBeLessThan(900);
  });
});

describe('what the validator says of a report that breaks the rules', () => {
  test('names every problem by its path, separated by semicolons', () => {
    const raw = { status: 'continue', summary: ' ', evidence: [], nextSteps: [''], blocker: 'b' };
    expect(checkReport(raw)).toEqual({
      ok: false,
      problem:
        'summary: summary must not be empty; nextSteps.0: next steps must not be empty; ' +
        'blocker: a continue report must not carry a blocker',
    });
  });

  test('reports each rule as a custom issue at the offending path', () => {
    const cases: [unknown, (string | number)[]][] = [
      [{ status: 'continue', summary: ' ', evidence: [], nextSteps: ['n'], blocker: null }, ['summary']],
      [{ status: 'complete', summary: 's', evidence: [' '], nextSteps: [], blocker: null }, ['evidence', 0]],
      [{ status: 'blocked', summary: 's', evidence: [], nextSteps: ['\t'], blocker: 'b' }, ['nextSteps', 0]],
      [{ status: 'continue', summary: 's', evidence: [], nextSteps: [], blocker: null }, ['nextSteps']],
      [{ status: 'continue', summary: 's', evidence: [], nextSteps: ['n'], blocker: 'b' }, ['blocker']],
      [{ status: 'complete', summary: 's', evidence: [], nextSteps: [], blocker: null }, ['evidence']],
      [{ status: 'complete', summary: 's', evidence: ['e'], nextSteps: ['n'], blocker: null }, ['nextSteps']],
      [{ status: 'complete', summary: 's', evidence: ['e'], nextSteps: [], blocker: 'b' }, ['blocker']],
      [{ status: 'blocked', summary: 's', evidence: [], nextSteps: [], blocker: null }, ['blocker']],
    ];
    for (const [raw, path] of cases) {
      const issues = reportSchema.safeParse(raw).error?.issues ?? [];
      expect(issues.map((issue) => ({ code: issue.code, path: issue.path }))).toEqual([
        { code: 'custom', path },
      ]);
    }
  });
});

describe('what counts as no report at all', () => {
  test('null and undefined are missing; anything else is a report to check', () => {
    fc.assert(
      fc.property(anything, (raw) => {
        expect(isMissingReport(raw)).toBe(raw === null || raw === undefined);
      }),
    );
    expect(isMissingReport(null)).toBe(true);
    expect(isMissingReport(undefined)).toBe(true);
  });
});

describe('the handoff size', () => {
  test('is the length of the compact JSON of the report', () => {
    fc.assert(
      fc.property(validReport, (report) => {
        expect(handoffSize(report)).toBe(JSON.stringify(report).length);
      }),
    );
  });
});

describe("the report's JSON Schema handed to children", () => {
  const validate = new Ajv({ strict: false }).compile(reportJsonSchema);

  test('is draft-07 and closed: every field required, no other field allowed', () => {
    expect(reportJsonSchema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(reportJsonSchema.type).toBe('object');
    expect(reportJsonSchema.additionalProperties).toBe(false);
    expect([...(reportJsonSchema.required as string[])].sort()).toEqual([
      'blocker',
      'evidence',
      'nextSteps',
      'status',
      'summary',
    ]);
  });

  test('admits every report the rules accept', () => {
    fc.assert(
      fc.property(validReport, (report) => {
        expect(validate(report)).toBe(true);
      }),
    );
  });

  test('refuses every object with a missing, extra or mistyped field', () => {
    fc.assert(
      fc.property(reportLike, (raw) => {
        if (!satisfiesShape(raw)) expect(validate(raw)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  test('tells the child each status rule, since strict structured output cannot enforce them', () => {
    const described = (field: string) => {
      const properties = reportJsonSchema.properties as Record<string, { description?: string }>;
      return properties[field]?.description ?? '';
    };
    expect(described('status')).toMatch(/continue.*complete.*blocked/s);
    expect(described('summary')).toMatch(/not be empty/);
    expect(described('evidence')).toMatch(/non-empty when complete/);
    expect(described('nextSteps')).toMatch(/non-empty when continue.*empty when complete/s);
    expect(described('blocker')).toMatch(/blocked.*null when continue or complete/s);
  });
});

/** The shape alone, without the status rules or blank checks: what a JSON Schema can say. */
function satisfiesShape(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
  const { status, summary, evidence, nextSteps, blocker, ...rest } = raw as Record<string, unknown>;
  const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
  return (
    Object.keys(rest).length === 0 &&
    ['continue', 'complete', 'blocked'].includes(status as string) &&
    typeof summary === 'string' &&
    strings(evidence) &&
    strings(nextSteps) &&
    (blocker === null || typeof blocker === 'string') &&
    Object.keys(raw).length === 5
  );
}
