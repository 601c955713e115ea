import { positiveSafeInteger } from '../contract/integers.js';

/**
 * Keeps the last `limit` bytes written to it and counts the rest: a child that prints gigabytes costs the host at
 * most `limit` bytes per stream, and the tail is where a report and the last error lines are.
 */
export class TailBuffer {
  readonly #limit: number;
  #chunks: Buffer[] = [];
  #kept = 0;
  #dropped = 0;

  constructor(limit: number) {
    this.#limit = positiveSafeInteger(limit, 'a tail buffer limit');
  }

  /** Bytes written but no longer kept. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Bytes kept. */
  get size(): number {
    return this.#kept;
  }

  write(chunk: Buffer): void {
    if (chunk.length >= this.#limit) {
      this.#dropped += this.#kept + chunk.length - this.#limit;
      // A copy, so the kept tail does not pin a large chunk's whole backing store.
      this.#chunks = [Buffer.from(chunk.subarray(chunk.length - this.#limit))];
      this.#kept = this.#limit;
      return;
    }
    this.#chunks.push(chunk);
    this.#kept += chunk.length;
    while (this.#kept > this.#limit) {
      const first = this.#chunks[0] as Buffer;
      const excess = this.#kept - this.#limit;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#kept -= first.length;
        this.#dropped += first.length;
      } else {
        this.#chunks[0] = first.subarray(excess);
        this.#kept -= excess;
        this.#dropped += excess;
      }
    }
  }

  /** The kept tail as UTF-8 text (a character cut at the front reads as U+FFFD). */
  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}
