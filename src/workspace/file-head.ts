import type { FileHandle } from 'node:fs/promises';

/** The first `limit` bytes of an open file as UTF-8 text, and the file's whole size (to say what was left out). */
export async function readHead(handle: FileHandle, limit: number): Promise<{ text: string; size: number }> {
  const { size } = await handle.stat();
  // Sized to the file, not the limit: a report is a few kB, the limit a MiB.
  const buffer = Buffer.alloc(Math.min(size, limit));
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
  return { text: buffer.subarray(0, bytesRead).toString('utf8'), size };
}
