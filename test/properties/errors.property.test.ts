import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isRalphError, RalphError, type RalphFailure } from '../../src/contract/errors.js';
import { validReport } from './arbitraries.js';

const failure: fc.Arbitrary<RalphFailure> = fc.record(
  {
    code: fc.constantFrom('refused', 'workflow-failed', 'child-failed', 'cancelled'),
    message: fc.string({ minLength: 1 }),
    round: fc.integer({ min: 1, max: 256 }),
    lastHandoff: fc.option(validReport),
    detail: fc.string(),
  },
  { requiredKeys: ['code', 'message'] },
);

describe('RalphError', () => {
  test('carries the failure as it was given, and gives it back as plain data', () => {
    fc.assert(
      fc.property(failure, fc.option(fc.string({ minLength: 1 }), { nil: undefined }), (given, runId) => {
        const error = new RalphError(given, runId === undefined ? undefined : { runId });
        expect(error).toBeInstanceOf(Error);
        expect(error.name).toBe('RalphError');
        expect(error.message).toBe(given.message);
        expect(error.code).toBe(given.code);
        expect(error.round).toBe(given.round);
        expect(error.lastHandoff).toBe(given.lastHandoff);
        expect(error.detail).toBe(given.detail);
        expect(error.runId).toBe(runId);
        // Absent fields stay absent (not undefined-valued), so the JSON is exactly the failure.
        expect(error.toJSON()).toStrictEqual(runId === undefined ? { ...given } : { ...given, runId });
        expect(JSON.parse(JSON.stringify(error))).toEqual(JSON.parse(JSON.stringify({ ...given, runId })));
      }),
    );
  });

  test('keeps a cause only when one is given', () => {
    const cause = new Error('underneath');
    expect(new RalphError({ code: 'workflow-failed', message: 'm' }, { cause }).cause).toBe(cause);
    expect('cause' in new RalphError({ code: 'workflow-failed', message: 'm' })).toBe(false);
    expect('cause' in new RalphError({ code: 'workflow-failed', message: 'm' }, { runId: 'r' })).toBe(false);
  });

  test('isRalphError tells a RalphError from anything else', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.anything(),
          fc.string().map((m) => new Error(m)),
        ),
        (value) => {
          expect(isRalphError(value)).toBe(false);
        },
      ),
    );
    fc.assert(
      fc.property(failure, (given) => {
        expect(isRalphError(new RalphError(given))).toBe(true);
      }),
    );
  });
});
