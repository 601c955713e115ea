import { isUnreadableReport, unreadableReport } from '../contract/unreadable-round-report.js';

/**
 * JSON for recording lines, keeping what plain JSON would lose and the machine reads: an Error's message (a child
 * failure's detail), a provider's unreadable-report marker (a symbol key), a bigint. Each becomes an object tagged
 * with `$type`, and an object that has a `$type` key of its own is written as its entries, so no value a child
 * produced can pass for a tag.
 */
function encodeReplacer(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return { $type: 'BigInt', value: value.toString() };
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Error) {
    // A failed round's usage travels on its error (what its agent said it spent counts): kept, so a replay counts it.
    const { usage } = value as { usage?: unknown };
    return {
      $type: 'Error',
      name: value.name,
      message: value.message,
      ...(usage === undefined ? {} : { usage }),
    };
  }
  if (isUnreadableReport(value))
    return { $type: 'UnreadableReport', kind: value.kind, problem: value.problem };
  if (!Array.isArray(value) && Object.hasOwn(value, '$type'))
    return { $type: 'Object', entries: Object.entries(value) };
  return value;
}

function decodeReviver(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const tagged = value as Record<string, unknown>;
  switch (tagged.$type) {
    case undefined:
      return value;
    case 'Error': {
      const error = new Error(String(tagged.message));
      error.name = String(tagged.name);
      return tagged.usage === undefined ? error : Object.assign(error, { usage: tagged.usage });
    }
    case 'UnreadableReport':
      return unreadableReport(tagged.kind === 'missing' ? 'missing' : 'malformed', String(tagged.problem));
    case 'BigInt':
      return BigInt(String(tagged.value));
    case 'Object':
      return Object.fromEntries(Array.isArray(tagged.entries) ? tagged.entries : []);
    default:
      return value;
  }
}

/** One value as recording JSON (no newline). */
export function encodeRecordingJson(value: unknown): string {
  return JSON.stringify(value, encodeReplacer);
}

/** Parses recording JSON, turning its tagged objects back into what they stand for. Throws on invalid JSON. */
export function decodeRecordingJson(text: string): unknown {
  return JSON.parse(text, decodeReviver);
}
