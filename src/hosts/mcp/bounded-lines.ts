import { Transform, type TransformCallback } from 'node:stream';

/**
 * The largest MCP message `ralph mcp` reads, in bytes: room for an objective of MAX_OBJECTIVE_CHARS characters even
 * when JSON writes each as a six-byte `\uXXXX` escape. The SDK's stdio transport holds a message whole and, past its
 * own 10 MB limit, closes the connection (the server then exits); here a longer message is skipped as it streams by.
 */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** How much of the start and end of a skipped message is kept to find its JSON-RPC id. */
const KEPT_BYTES = 256;

/** The JSON-RPC id of a message from its first and last bytes (the SDK writes it last), or null when not found. */
function idOf(head: Buffer, tail: Buffer): string | number | null {
  const pattern = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*[,}]/g;
  for (const part of [tail, head]) {
    const found = [...part.toString('utf8').matchAll(pattern)].at(-1)?.[1];
    if (found === undefined) continue;
    try {
      return JSON.parse(found) as string | number;
    } catch {
      return null; // Not a JSON value after all (`"\q"`): no request to answer.
    }
  }
  return null;
}

/**
 * A stream of newline-delimited messages that passes on every line of at most `max` bytes, each as one chunk, and
 * skips a longer one as it arrives (holding at most `max` bytes, never the whole line), calling `onSkipped` with its
 * id and length once its end has passed.
 */
export function boundedLines(
  onSkipped: (id: string | number | null, bytes: number) => void,
  max: number = MAX_MESSAGE_BYTES,
): Transform {
  let parts: Buffer[] = [];
  let size = 0;
  let skipping = false;
  let head = Buffer.alloc(0);
  let tail = Buffer.alloc(0);
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(10, start);
        const end = newline === -1 ? chunk.length : newline + 1;
        const piece = chunk.subarray(start, end);
        start = end;
        if (!skipping && size + piece.length > max + 1) {
          const kept = Buffer.concat([...parts, piece]);
          head = kept.subarray(0, KEPT_BYTES);
          tail = kept.subarray(-KEPT_BYTES);
          skipping = true;
          size += piece.length;
          parts = [];
        } else if (skipping) {
          tail = Buffer.concat([tail, piece]).subarray(-KEPT_BYTES);
          size += piece.length;
        } else {
          parts.push(piece);
          size += piece.length;
        }
        if (newline === -1) break;
        if (skipping) onSkipped(idOf(head, tail), size);
        else this.push(Buffer.concat(parts));
        parts = [];
        size = 0;
        skipping = false;
      }
      done();
    },
  });
}
