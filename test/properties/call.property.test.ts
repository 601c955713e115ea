import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  callArgsSchema,
  callJsonSchema,
  DEFAULT_MAX_ROUNDS,
  isNonEmptyObjective,
  isValidMaxRounds,
  objectiveOf,
  requestedMaxRoundsOf,
  resolveMaxRounds,
} from '../../src/contract/call.js';

// The rules of the call's fields, from the reference: the objective is a non-empty string (white space only
// counts as empty); maxRounds is optional and, when given, a positive safe integer; null counts as absent.
const isPositiveSafeInteger = (v: unknown) =>
  typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= Number.MAX_SAFE_INTEGER;

const roundsLike = fc.oneof(
  fc.integer({ min: -3, max: 300 }),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, 2 ** 53 + 2, Number.NaN),
  fc.constantFrom(Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0.5, 1.5, -0, 1e-9),
  fc.double(),
  fc.constantFrom('3', null, undefined, true, [3], { valueOf: () => 3 }),
);

describe("a call's maxRounds", () => {
  test('is valid exactly when absent or a positive safe integer', () => {
    fc.assert(
      fc.property(roundsLike, (value) => {
        expect(isValidMaxRounds(value)).toBe(value === undefined || isPositiveSafeInteger(value));
      }),
      { numRuns: 2000 },
    );
  });

  test('null counts as absent; any other value is read as given', () => {
    fc.assert(
      fc.property(roundsLike, (value) => {
        expect(requestedMaxRoundsOf({ objective: 'o', maxRounds: value })).toBe(
          value === null ? undefined : value,
        );
      }),
    );
    expect(requestedMaxRoundsOf({ objective: 'o' })).toBeUndefined();
    expect(requestedMaxRoundsOf('not an object')).toBeUndefined();
    expect(requestedMaxRoundsOf(null)).toBeUndefined();
  });

  test('resolves to itself when valid, else to the deployment default', () => {
    fc.assert(
      fc.property(roundsLike, fc.integer({ min: 1, max: DEFAULT_MAX_ROUNDS }), (value, deployment) => {
        const expected = value !== undefined && isPositiveSafeInteger(value) ? value : deployment;
        expect(resolveMaxRounds(value, deployment)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  test('has 256 as its default and ceiling', () => {
    expect(DEFAULT_MAX_ROUNDS).toBe(256);
  });
});

describe("a call's objective", () => {
  test('is non-empty exactly when a string with something other than white space', () => {
    const objectiveLike = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom('', ' ', '\t\n', '\u00a0', '\ufeff', ' x '),
      fc.anything(),
    );
    fc.assert(
      fc.property(objectiveLike, (value) => {
        expect(isNonEmptyObjective(value)).toBe(typeof value === 'string' && value.trim().length > 0);
      }),
      { numRuns: 2000 },
    );
  });

  test('is read from the arguments as given, whatever they are', () => {
    fc.assert(
      fc.property(fc.anything(), (objective) => {
        expect(objectiveOf({ objective })).toBe(objective);
      }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.constant(null), fc.constant(undefined), fc.string(), fc.integer()), (args) => {
        expect(objectiveOf(args)).toBeUndefined();
      }),
    );
  });
});

describe("the call's schemas are no stricter than the tool's own checks", () => {
  test('the JSON Schema is exactly { objective: string (required), maxRounds?: number }, closed', () => {
    expect(callJsonSchema.type).toBe('object');
    expect(Object.keys(callJsonSchema.properties)).toEqual(['objective', 'maxRounds']);
    expect(callJsonSchema.properties.objective.type).toBe('string');
    expect(callJsonSchema.properties.maxRounds.type).toBe('number');
    expect(callJsonSchema.required).toEqual(['objective']);
    expect(callJsonSchema.additionalProperties).toBe(false);
    expect(callJsonSchema.properties.objective.description).toMatch(/immutable objective/);
    expect(callJsonSchema.properties.maxRounds.description).toMatch(/default and the ceiling/);
    expect(Object.isFrozen(callJsonSchema)).toBe(true);
  });

  test('the zod schema lets through every string objective and every JSON number maxRounds', () => {
    const jsonNumber = fc.double({ noNaN: true, noDefaultInfinity: true });
    fc.assert(
      fc.property(fc.string(), fc.option(jsonNumber, { nil: undefined }), (objective, maxRounds) => {
        const args = maxRounds === undefined ? { objective } : { objective, maxRounds };
        expect(callArgsSchema.safeParse(args).success).toBe(true);
      }),
    );
    expect(callArgsSchema.shape.objective.description).toBe(callJsonSchema.properties.objective.description);
    expect(callArgsSchema.shape.maxRounds.description).toBe(callJsonSchema.properties.maxRounds.description);
  });
});
