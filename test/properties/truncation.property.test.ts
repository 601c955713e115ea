import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { TRUNCATION_MARKER } from '../../src/contract/messages.js';
import { renderFullResultText, renderResultText } from '../../src/render/result-text.js';
import { truncateText } from '../../src/render/truncate.js';
import { envelope } from './arbitraries.js';

// The marker as the reference writes it, spelled out rather than taken from the code under test.
const MARKER = '… [truncated]';

/** The smallest maxResultChars the config accepts: room for the marker and one character. */
const MIN_MAX_CHARS = MARKER.length + 1;

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** Texts of any code points (astral ones are two UTF-16 units), none containing the marker. */
const text = fc.string({ unit: 'binary', maxLength: 200 }).filter((t) => !t.includes(MARKER));

/** A limit near the text's length, so that texts just under, at and just over it all come up. */
const textAndLimit = text
  .chain((t) =>
    fc.tuple(
      fc.constant(t),
      fc.oneof(
        fc.integer({ min: MIN_MAX_CHARS, max: 260 }),
        fc.integer({ min: -2, max: 2 }).map((d) => t.length + d),
      ),
    ),
  )
  .filter(([, max]) => max >= MIN_MAX_CHARS);

/** The truncation invariant: bounded, marked exactly when cut, and a cut text is a prefix of the full one. */
function expectTruncated(full: string, out: string, max: number) {
  expect(out.length).toBeLessThanOrEqual(max);
  const cut = full.length > max;
  expect(out.endsWith(MARKER)).toBe(cut);
  expect(out.includes(MARKER)).toBe(cut);
  if (!cut) {
    expect(out).toBe(full);
    return;
  }
  const kept = out.slice(0, -MARKER.length);
  expect(full.startsWith(kept)).toBe(true);
  // It keeps as much as fits, giving up one more unit only to avoid splitting a surrogate pair.
  const room = max - MARKER.length;
  const split = isHighSurrogate(full.charCodeAt(room - 1));
  expect(kept.length).toBe(split ? room - 1 : room);
  if (kept.length > 0) expect(isHighSurrogate(kept.charCodeAt(kept.length - 1))).toBe(false);
}

describe('the result truncation invariant', () => {
  test("the marker is the reference's", () => {
    expect(TRUNCATION_MARKER).toBe(MARKER);
  });

  test('truncateText: length ≤ max, marker present iff cut, the text before the marker a prefix of the full text', () => {
    fc.assert(
      fc.property(textAndLimit, ([full, max]) => {
        expectTruncated(full, truncateText(full, max), max);
      }),
      { numRuns: 3000 },
    );
  });

  test('never splits a surrogate pair at the cut', () => {
    const astral = fc
      .array(fc.constantFrom('😀', '𝄞', 'a', 'é'), { minLength: 1, maxLength: 60 })
      .map((cs) => cs.join(''));
    fc.assert(
      fc.property(astral, fc.integer({ min: MIN_MAX_CHARS, max: 80 }), (full, max) => {
        expectTruncated(full, truncateText(full, max), max);
      }),
      { numRuns: 2000 },
    );
  });

  test('renderResultText: the same invariant over the full native text of any envelope', () => {
    fc.assert(
      fc.property(envelope, fc.integer({ min: MIN_MAX_CHARS, max: 2000 }), (settled, max) => {
        const full = renderFullResultText(settled);
        expectTruncated(full, renderResultText(settled, max), max);
      }),
      { numRuns: 1000 },
    );
  });

  test('renderResultText without a limit bounds the text at the default 16,384 characters', () => {
    fc.assert(
      fc.property(envelope, fc.integer({ min: 0, max: 20_000 }), (settled, padding) => {
        const padded = {
          ...settled,
          result: {
            ...settled.result,
            report: { ...settled.result.report, summary: `s${'x'.repeat(padding)}` },
          },
        };
        expectTruncated(renderFullResultText(padded), renderResultText(padded), 16_384);
      }),
      { numRuns: 50 },
    );
  });

  test('the envelope itself is never cut', () => {
    fc.assert(
      fc.property(envelope, fc.integer({ min: MIN_MAX_CHARS, max: 100 }), (settled, max) => {
        const before = structuredClone(settled);
        renderResultText(settled, max);
        expect(settled).toEqual(before);
      }),
      { numRuns: 200 },
    );
  });
});
