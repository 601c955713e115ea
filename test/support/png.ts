/** The width and height a PNG's header (IHDR, right after the 8-byte signature) declares. */
export function pngSize(png: Buffer): { width: number; height: number } {
  if (png.subarray(1, 4).toString('latin1') !== 'PNG' || png.subarray(12, 16).toString('latin1') !== 'IHDR') {
    throw new Error('not a PNG');
  }
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
