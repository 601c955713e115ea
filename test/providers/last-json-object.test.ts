import { describe, expect, it } from 'vitest';
import { lastJsonObject } from '../../src/providers/last-json-object.js';

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
  ])('finds %s', (_, text, expected) => {
    expect(lastJsonObject(text)).toEqual(expected);
  });

  it.each([
    ['no braces', 'hello world'],
    ['only an array', '[1, 2, 3]'],
    ['partial JSON', '{"status":"complete","summary":"half'],
    ['garbage braces', '}}} {{{ {not json} "{" }'],
    ['nothing', ''],
  ])('finds nothing in %s', (_, text) => {
    expect(lastJsonObject(text)).toBeUndefined();
  });

  it('gives up on pathological output instead of trying every span', () => {
    const text = `${'{'.repeat(200_000)}${'}'.repeat(200_000)}`;
    expect(lastJsonObject(text)).toBeUndefined();
  });
});
