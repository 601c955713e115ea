const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;

/** What `scanForLastJsonObject` found, and how much work it took. */
export interface JsonObjectScan {
  object: Record<string, unknown> | undefined;
  /** Characters visited plus candidates tried: at most a small constant times the text's length. */
  steps: number;
}

/** Where the recogniser is in the grammar, between tokens: what it expects next. */
const Expect = {
  Value: 0,
  ValueOrArrayEnd: 1,
  KeyOrObjectEnd: 2,
  Key: 3,
  Colon: 4,
  CommaOrEnd: 5,
} as const;
type Expected = (typeof Expect)[keyof typeof Expect];

/** An array on the recogniser's stack; an object is its start position. */
const ARRAY = -1;
/** A memo entry: the object starting there is not valid JSON. */
const INVALID = -1;

const isWhitespace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHexDigit = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const ESCAPED = new Set([QUOTE, BACKSLASH, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);

/**
 * Pairs every `{` with the `}` that would close it if it started a JSON object, in one pass. Inside a valid object
 * the string delimiters are exactly the quotes not escaped by an odd run of backslashes, so whether a brace is inside
 * a string, as seen from a given `{`, depends only on the parity of such quotes between the two. That splits the
 * braces into two classes, each matched with a stack. Returns [start, end] pairs flattened, in ascending `end`.
 */
function pairBraces(text: string, work: { steps: number }): number[] {
  const open: [number[], number[]] = [[], []];
  const pairs: number[] = [];
  let parity: 0 | 1 = 0;
  let backslashes = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) {
      backslashes += 1;
      continue;
    }
    if (c === QUOTE && backslashes % 2 === 0) parity = parity === 0 ? 1 : 0;
    else if (c === OPEN_BRACE) open[parity].push(i);
    else if (c === CLOSE_BRACE) {
      const start = open[parity].pop();
      if (start !== undefined) pairs.push(start, i);
    }
    backslashes = 0;
  }
  work.steps += text.length;
  return pairs;
}

/** Past the string whose opening quote is at `from`, or -1 when it is not a valid JSON string. */
function endOfString(text: string, from: number, work: { steps: number }): number {
  for (let j = from + 1; j < text.length; j += 1) {
    work.steps += 1;
    const c = text.charCodeAt(j);
    if (c === QUOTE) return j + 1;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      j += 1;
      const escaped = text.charCodeAt(j);
      if (escaped === 0x75) {
        for (let k = 1; k <= 4; k += 1) if (!isHexDigit(text.charCodeAt(j + k))) return -1;
        j += 4;
      } else if (!ESCAPED.has(escaped)) return -1;
    }
  }
  return -1;
}

/** Past the number, `true`, `false` or `null` starting at `from`, or -1 when there is none. */
function endOfScalar(text: string, from: number, work: { steps: number }): number {
  for (const literal of ['true', 'false', 'null']) {
    if (text.startsWith(literal, from)) {
      work.steps += literal.length;
      return from + literal.length;
    }
  }
  let j = from;
  const digits = () => {
    const first = j;
    while (isDigit(text.charCodeAt(j))) j += 1;
    work.steps += j - first;
    return j > first;
  };
  if (text.charCodeAt(j) === 0x2d) j += 1;
  if (text.charCodeAt(j) === 0x30) j += 1;
  else if (!digits()) return -1;
  if (text.charCodeAt(j) === 0x2e) {
    j += 1;
    if (!digits()) return -1;
  }
  const exponent = text.charCodeAt(j);
  if (exponent === 0x65 || exponent === 0x45) {
    j += 1;
    const sign = text.charCodeAt(j);
    if (sign === 0x2b || sign === 0x2d) j += 1;
    if (!digits()) return -1;
  }
  return j;
}

/**
 * Recognises the JSON object starting at `start` (a `{`) without building it: its last index, or -1. Every object it
 * meets is remembered in `memo` (its end, or INVALID): a remembered one is skipped or fails at once, so the
 * recognisers of all candidates together visit each character a bounded number of times.
 */
function recogniseObject(
  text: string,
  start: number,
  memo: Map<number, number>,
  work: { steps: number },
): number {
  /** The open containers, innermost last: an object as its start, an array as ARRAY. */
  const stack: number[] = [];
  let expect: Expected = Expect.Value;
  let i = start;

  const fail = (): number => {
    // The failure lies inside every object still open, so none of them is valid on its own either.
    for (const frame of stack) if (frame !== ARRAY) memo.set(frame, INVALID);
    return -1;
  };

  for (;;) {
    work.steps += 1;
    while (i < text.length && isWhitespace(text.charCodeAt(i))) {
      i += 1;
      work.steps += 1;
    }
    if (i >= text.length) return fail();
    const c = text.charCodeAt(i);

    if (expect === Expect.Value || expect === Expect.ValueOrArrayEnd) {
      if (c === CLOSE_BRACKET && expect === Expect.ValueOrArrayEnd) {
        stack.pop();
        i += 1;
      } else if (c === OPEN_BRACE) {
        const known = memo.get(i);
        if (known === INVALID) return fail();
        if (known === undefined) {
          stack.push(i);
          i += 1;
          expect = Expect.KeyOrObjectEnd;
          continue;
        }
        i = known + 1;
      } else if (c === OPEN_BRACKET) {
        stack.push(ARRAY);
        i += 1;
        expect = Expect.ValueOrArrayEnd;
        continue;
      } else {
        i = c === QUOTE ? endOfString(text, i, work) : endOfScalar(text, i, work);
        if (i === -1) return fail();
      }
    } else if (expect === Expect.KeyOrObjectEnd && c === CLOSE_BRACE) {
      memo.set(stack.pop() as number, i);
      i += 1;
    } else if (expect === Expect.KeyOrObjectEnd || expect === Expect.Key) {
      if (c !== QUOTE) return fail();
      i = endOfString(text, i, work);
      if (i === -1) return fail();
      expect = Expect.Colon;
      continue;
    } else if (expect === Expect.Colon) {
      if (c !== COLON) return fail();
      i += 1;
      expect = Expect.Value;
      continue;
    } else {
      const innermost = stack[stack.length - 1] as number;
      if (c === COMMA) {
        i += 1;
        expect = innermost === ARRAY ? Expect.Value : Expect.Key;
        continue;
      }
      if (c !== (innermost === ARRAY ? CLOSE_BRACKET : CLOSE_BRACE)) return fail();
      stack.pop();
      if (innermost !== ARRAY) memo.set(innermost, i);
      i += 1;
    }

    // A whole value ends just before `i`.
    if (stack.length === 0) return i - 1;
    expect = Expect.CommaOrEnd;
  }
}

/**
 * `lastJsonObject` with the work it took, for tests that bound its cost. Candidates are the brace pairs, tried from
 * the one ending last; among objects ending at the same `}` only one can be valid, and an outer object ends after
 * every object inside it, so the first valid candidate is the outermost of the last objects.
 */
export function scanForLastJsonObject(text: string): JsonObjectScan {
  const work = { steps: 0 };
  const pairs = pairBraces(text, work);
  const memo = new Map<number, number>();
  for (let k = pairs.length - 2; k >= 0; k -= 2) {
    const start = pairs[k] as number;
    work.steps += 1;
    const known = memo.get(start);
    const end = known ?? recogniseObject(text, start, memo, work);
    if (end === INVALID) continue;
    try {
      return { object: JSON.parse(text.slice(start, end + 1)) as Record<string, unknown>, steps: work.steps };
    } catch {
      // The recogniser and JSON.parse disagree: trust JSON.parse and try the next candidate.
    }
  }
  return { object: undefined, steps: work.steps };
}

/**
 * The last complete JSON object in free text (logs, then a report, perhaps pretty-printed, perhaps followed by more
 * logs), or undefined when there is none: of the objects ending last, the outermost. Braces inside JSON strings do
 * not count, prose before an object (with braces, quotes or apostrophes of its own) does not hide it, and the work is
 * linear in the text's length, so megabytes of garbage braces cost little.
 */
export function lastJsonObject(text: string): Record<string, unknown> | undefined {
  return scanForLastJsonObject(text).object;
}
