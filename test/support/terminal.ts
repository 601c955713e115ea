import { execFileSync } from 'node:child_process';

/**
 * The control characters a terminal acts on (C0 but tab and newline, DEL, C1) that `text` holds, as code points:
 * written apart from src/render/terminal-text.ts, so a test does not check the code with itself.
 */
export const controlsIn = (text: string): number[] =>
  [...text]
    .map((char) => char.codePointAt(0) as number)
    .filter((code) => (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f));

/** util-linux `script` is there to give the CLI a pseudo-terminal, so its stderr is a TTY as in a person's terminal. */
export const hasScript: boolean = (() => {
  if (process.platform !== 'linux') return false;
  try {
    return execFileSync('script', ['--version'], { encoding: 'utf8' }).includes('util-linux');
  } catch {
    return false;
  }
})();
