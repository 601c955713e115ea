import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { normalizeConfig } from '../../src/contract/config.js';
import { RalphError } from '../../src/contract/errors.js';
import { blankText, nonBlankText } from './arbitraries.js';

// The deployment settings, from the seeds and the design: the provider is a name; 256 rounds is the default and
// the ceiling; the handoff and result caps default to 16,384 characters, and the result cap leaves room for the
// "… [truncated]" marker and one character; the termination grace defaults to 5 s and is at most 10 minutes.
const MARKER_LENGTH = '… [truncated]'.length;
const SETTINGS = ['subagentProvider', 'maxRounds', 'maxHandoffChars', 'maxResultChars', 'terminationGraceMs'];

const wholeIn = (v: unknown, min: number, max: number) =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;

/** The problems the rules find in a config, by setting; [] for a valid one. */
function problemsOf(config: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const { subagentProvider, maxRounds, maxHandoffChars, maxResultChars, terminationGraceMs } = config;
  if (typeof subagentProvider !== 'string' || subagentProvider.trim() === '')
    problems.push('subagentProvider');
  if (maxRounds !== undefined && !wholeIn(maxRounds, 1, 256)) problems.push('maxRounds');
  if (maxHandoffChars !== undefined && !wholeIn(maxHandoffChars, 1, Number.MAX_SAFE_INTEGER))
    problems.push('maxHandoffChars');
  if (maxResultChars !== undefined && !wholeIn(maxResultChars, MARKER_LENGTH + 1, Number.MAX_SAFE_INTEGER))
    problems.push('maxResultChars');
  if (terminationGraceMs !== undefined && !wholeIn(terminationGraceMs, 0, 600_000))
    problems.push('terminationGraceMs');
  return problems;
}

const near = (...edges: number[]) =>
  fc.oneof(
    fc.constantFrom(...edges.flatMap((e) => [e - 1, e, e + 1])),
    fc.integer({ min: -5, max: 700_000 }),
    fc.constantFrom(1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, '3', null),
  );

const configLike = fc
  .record(
    {
      subagentProvider: fc.oneof({ weight: 6, arbitrary: nonBlankText }, blankText, fc.integer()),
      maxRounds: near(1, 256),
      maxHandoffChars: near(1, 16_384),
      maxResultChars: near(MARKER_LENGTH + 1, 16_384),
      terminationGraceMs: near(0, 5_000, 600_000),
      extra: fc.constantFrom('reportSchema', 'maxTotalAgents', 'maxround'),
    },
    { requiredKeys: [] },
  )
  .chain((config) =>
    fc.boolean().map((keepExtra) => {
      const { extra, ...settings } = config;
      return keepExtra && extra !== undefined ? { ...settings, [extra]: 1 } : settings;
    }),
  );

describe('the deployment config', () => {
  test('is accepted exactly when every setting follows the rules, and then filled with the defaults', () => {
    fc.assert(
      fc.property(configLike, (config: Record<string, unknown>) => {
        const extra = Object.keys(config).filter((key) => !SETTINGS.includes(key));
        const problems = problemsOf(config);
        if (problems.length === 0 && extra.length === 0) {
          const normalized = normalizeConfig(config);
          expect(normalized).toEqual({
            subagentProvider: (config.subagentProvider as string).trim(),
            maxRounds: config.maxRounds ?? 256,
            maxHandoffChars: config.maxHandoffChars ?? 16_384,
            maxResultChars: config.maxResultChars ?? 16_384,
            terminationGraceMs: config.terminationGraceMs ?? 5_000,
          });
          expect(Object.isFrozen(normalized)).toBe(true);
          return;
        }
        let thrown: unknown;
        try {
          normalizeConfig(config);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(RalphError);
        const { code, message } = thrown as RalphError;
        expect(code).toBe('refused');
        expect(message.startsWith('Ralph config is invalid: ')).toBe(true);
        // Each problem is named by its setting, and the problems are separated by semicolons.
        for (const setting of problems) expect(message).toContain(`${setting}: `);
        if (extra.length > 0) expect(message).toContain(`Unrecognized key: "${extra[0]}"`);
        const parts = message.slice('Ralph config is invalid: '.length).split('; ');
        expect(parts.length).toBeGreaterThanOrEqual(problems.length + (extra.length > 0 ? 1 : 0));
        for (const part of parts) expect(part).toMatch(/^(\w+: |Unrecognized key)/);
      }),
      { numRuns: 2000 },
    );
  });

  test('a config that is not an object is refused as a whole, with no setting named', () => {
    expect(() => normalizeConfig('claude')).toThrow(
      new RalphError({
        code: 'refused',
        message: 'Ralph config is invalid: Invalid input: expected object, received string',
      }),
    );
    expect(() => normalizeConfig('claude')).toThrow(
      /^Ralph config is invalid: Invalid input: expected object/,
    );
  });

  test('names a bad setting by its path', () => {
    expect(() => normalizeConfig({ subagentProvider: 'p', maxRounds: 257 })).toThrow(
      /^Ralph config is invalid: maxRounds: /,
    );
  });
});
