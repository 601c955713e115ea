import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lastJsonObject, scanForLastJsonObject } from '../../src/providers/last-json-object.js';
import { validReport } from '../properties/arbitraries.js';

const report = {
  status: 'complete',
  summary: 'all { done }',
  evidence: ['npm test: 12 passed'],
  nextSteps: [],
  blocker: null,
};

/** Every JSON object span in `text`, tried by brute force: of those ending last, the outermost. */
function lastObjectByBruteForce(text: string): unknown {
  for (let end = text.length - 1; end >= 0; end -= 1) {
    if (text[end] !== '}') continue;
    for (let start = 0; start < end; start += 1) {
      if (text[start] !== '{') continue;
      try {
        const value: unknown = JSON.parse(text.slice(start, end + 1));
        if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value;
      } catch {
        // not an object span
      }
    }
  }
  return undefined;
}

describe('the last JSON object on stdout is the report', () => {
  it.each([
    ['a lone object', '{"a":1}', { a: 1 }],
    ['the last of several, one a line', '{"a":1}\n{"b":2}\n', { b: 2 }],
    ['the outer object, not one nested in it', 'log\n{"a":{"b":{"c":1}}}\nbye', { a: { b: { c: 1 } } }],
    [
      'a pretty-printed object among logs',
      'start {x}\n{\n  "a": [1, {"b": 2}],\n  "s": "} {"\n}\ndone } bye\n',
      { a: [1, { b: 2 }], s: '} {' },
    ],
    ['an object after prose on the same line', 'Report: {"status":"complete"} (end)', { status: 'complete' }],
    ['the last complete object when a later one is cut off', '{"a":1}\n{"b":', { a: 1 }],
    [
      'an object after prose with braces, quotes and apostrophes',
      `Let's see: he said "use {braces} and { like 'this' \\" {\n{"status":"complete"}\n`,
      { status: 'complete' },
    ],
    ['an object whose strings hold braces', 'x {"a":"}{{{","b":"\\"}"} y', { a: '}{{{', b: '"}' }],
    [
      'an object that starts inside what looked like a string of failed prose',
      '{"note": "see {"status":"complete"} for the rest',
      { status: 'complete' },
    ],
    ['an object after a failed candidate that encloses it', '{ oops {"a":1} }', { a: 1 }],
    ['an empty object', 'braces {} here', {}],
  ])('finds %s', (_, text, expected) => {
    expect(lastJsonObject(text)).toEqual(expected);
  });

  it.each([
    ['no braces', 'hello world'],
    ['only an array', '[1, 2, 3]'],
    ['partial JSON', '{"status":"complete","summary":"half'],
    ['garbage braces', '}}} {{{ {not json} "{" }'],
    ['nothing', ''],
    ['a raw newline in a string', '{"a":"line\nbreak"}'],
    ['a trailing comma', '{"a":1,}'],
  ])('finds nothing in %s', (_, text) => {
    expect(lastJsonObject(text)).toBeUndefined();
  });

  it('finds a report followed by thousands of brace pairs and unbalanced braces of logs', () => {
    const logs = Array.from({ length: 2000 }, (_, i) => `[debug] ctx {id ${i}} map {a: {b}}`).join('\n');
    const text = `starting\n${JSON.stringify(report)}\n${logs}\n}}} {{ {oops: "unclosed\n`;
    expect(lastJsonObject(text)).toEqual(report);
  });

  it('finds a pretty-printed report among brace-heavy logs', () => {
    const logs = '{tick} '.repeat(1000);
    const text = `${logs}\n${JSON.stringify(report, null, 2)}\n${logs}{`;
    expect(lastJsonObject(text)).toEqual(report);
  });

  it('finds a Claude JSON result whose result text holds 600 braces', () => {
    const result = {
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: `Here is the plan: ${'{'.repeat(600)}`,
      structured_output: report,
    };
    expect(lastJsonObject(`${JSON.stringify(result)}\n`)).toEqual(result);
  });

  it('agrees with a brute-force search of every span on short brace-heavy texts', () => {
    const structure = ['{', '}', '"', '\\', ':', ',', '[', ']', ' ', '\n', '{"a":', '"}', '{}'];
    const scalars = [
      '1',
      'a',
      '-',
      '0',
      '.',
      'e',
      '+',
      'true',
      'nul',
      '\\u00e9',
      '\\u12',
      '\\n',
      '\t',
      '\u2028',
    ];
    const piece = fc.constantFrom(...structure, ...scalars);
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => {
        const text = pieces.join('');
        expect(lastJsonObject(text)).toEqual(lastObjectByBruteForce(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('returns exactly the report embedded in any prose, when no object can end after it', () => {
    // Anything at all before the report; after it, a `}` only ever follows a letter or `;`, which no JSON object
    // can end on, so nothing after the report is a complete object.
    const before = fc.array(
      fc.oneof(
        fc.constantFrom(
          '{',
          '}',
          '"',
          "'",
          '\\',
          '{"a":',
          '{"b":"',
          '[',
          ']',
          ' ',
          '\n',
          "it's",
          '{}',
          '{"x":1}',
        ),
        fc.string({ maxLength: 8 }),
      ),
      { maxLength: 30 },
    );
    const after = fc.array(
      fc.constantFrom('{', 'a}', ';}', '"', "'", '\\', '{"', '":', '[', ']', ' ', '\n', '1', ',', 'log:'),
      { maxLength: 120 },
    );
    fc.assert(
      fc.property(before, validReport, fc.boolean(), after, (pre, embedded, pretty, post) => {
        const json = pretty ? JSON.stringify(embedded, null, 2) : JSON.stringify(embedded);
        const text = `${pre.join('')}${json}${post.join('')}`;
        expect(lastJsonObject(text)).toEqual(JSON.parse(json));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('bad output costs little', () => {
  /** The scanner's work per character of text: bounded by a small constant however the text is made. */
  const workPerChar = (text: string) => scanForLastJsonObject(text).steps / text.length;

  it.each([
    ['nested braces', `${'{'.repeat(200_000)}${'}'.repeat(200_000)}`],
    ['deeply nested unterminated objects', '{"a":'.repeat(200_000)],
    ['deeply nested objects that fail at the very end', `${'{"a":'.repeat(100_000)}1${'}x'.repeat(100_000)}`],
    ['nested arrays in objects', '{"a":['.repeat(200_000)],
    ['deep nesting closed half way', `${'{"a":'.repeat(100_000)}1${'}'.repeat(50_000)}`],
    ['nesting through strings', `${'{"a":"'.repeat(100_000)}1${'"}'.repeat(100_000)}`],
    ['objects opening strings that hold objects', '{"a":"{"b":"'.repeat(100_000)],
    ['a megabyte of escaped quotes and braces', '{"\\"{\\\\"'.repeat(120_000)],
  ])('%s', (_, text) => {
    expect(workPerChar(text)).toBeLessThanOrEqual(4);
  });

  it('megabytes of random braces, quotes and backslashes', () => {
    const piece = fc.constantFrom('{', '}', '"', '\\', ':', ',', '[', ']', '1', ' ', '{"a":', '"x"', 'null');
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 300 }), (pieces) => {
        const unit = pieces.join('');
        const text = unit.repeat(Math.ceil(1_000_000 / unit.length));
        expect(workPerChar(text)).toBeLessThanOrEqual(4);
      }),
      { numRuns: 20 },
    );
  });

  it('a megabyte of random braces, quotes and backslashes, character by character', () => {
    const alphabet = '{}{}""\\\\:,[]1 a';
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        let state = seed | 1;
        let text = '';
        for (let i = 0; i < 1_000_000; i += 1) {
          state ^= state << 13;
          state ^= state >>> 17;
          state ^= state << 5;
          text += alphabet[(state >>> 0) % alphabet.length];
        }
        expect(workPerChar(text)).toBeLessThanOrEqual(4);
      }),
      { numRuns: 10 },
    );
  });
});
