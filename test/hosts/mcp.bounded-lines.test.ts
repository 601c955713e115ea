import { describe, expect, it } from 'vitest';
import { boundedLines } from '../../src/hosts/mcp/bounded-lines.js';

/** Feeds `chunks` through a bounded line stream of `max` bytes; resolves with the lines passed on and those skipped. */
async function through(chunks: string[], max: number) {
  const skipped: [string | number | null, number][] = [];
  const stream = boundedLines((id, bytes) => skipped.push([id, bytes]), max);
  const passed: string[] = [];
  stream.on('data', (chunk: Buffer) => passed.push(chunk.toString()));
  for (const chunk of chunks) stream.write(Buffer.from(chunk));
  stream.end();
  await new Promise((resolve) => stream.on('end', resolve));
  return { passed, skipped };
}

describe('an MCP message stream bounded per line', () => {
  it('passes each line up to the bound whole, however it was cut, and skips a longer one naming its id', async () => {
    const long = `{"method":"tools/call","params":{"x":"${'y'.repeat(100)}"},"jsonrpc":"2.0","id":7}\n`;
    const { passed, skipped } = await through(
      ['{"id":1}\n{"i', 'd":2}\n', long.slice(0, 50), long.slice(50), '{"id":3}\n'],
      64,
    );
    expect(passed).toEqual(['{"id":1}\n', '{"id":2}\n', '{"id":3}\n']);
    expect(skipped).toEqual([[7, long.length]]);
  });

  it('skips a long line whose id is no JSON value, or that has none, without answering or failing', async () => {
    const bad = `{"x":"${'y'.repeat(100)}","id":"\\q"}\n`;
    const none = `{"x":"${'y'.repeat(100)}"}\n`;
    const { passed, skipped } = await through([bad, none, '{"id":"a"}\n'], 64);
    expect(passed).toEqual(['{"id":"a"}\n']);
    expect(skipped).toEqual([
      [null, bad.length],
      [null, none.length],
    ]);
  });
});
