/**
 * The control characters a terminal acts on (C0 but tab and newline, DEL, C1) that `text` holds, as code points:
 * written apart from src/render/terminal-text.ts, so a test does not check the code with itself.
 */
export const controlsIn = (text: string): number[] =>
  [...text]
    .map((char) => char.codePointAt(0) as number)
    .filter((code) => (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f));
