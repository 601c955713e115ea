import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TailBuffer } from '../../src/process/tail-buffer.js';

describe('a tail buffer keeps only the last bytes of a stream', () => {
  it('keeps exactly the last `limit` bytes, however the stream was chunked, and counts the rest', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 64 }),
        (chunks, limit) => {
          const tail = new TailBuffer(limit);
          for (const chunk of chunks) tail.write(Buffer.from(chunk));
          const all = Buffer.concat(chunks.map((chunk) => Buffer.from(chunk)));
          const kept = all.subarray(Math.max(0, all.length - limit));
          expect(tail.size).toBe(kept.length);
          expect(tail.dropped).toBe(all.length - kept.length);
          expect(tail.text()).toBe(kept.toString('utf8'));
        },
      ),
    );
  });

  it('never holds more than its limit', () => {
    const tail = new TailBuffer(10);
    tail.write(Buffer.from('a'.repeat(1000)));
    tail.write(Buffer.from('0123456789abc'));
    expect(tail.size).toBe(10);
    expect(tail.text()).toBe('3456789abc');
  });

  it('refuses a limit that is not a positive whole number', () => {
    expect(() => new TailBuffer(0)).toThrow(RangeError);
  });
});
