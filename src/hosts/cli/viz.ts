import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { generateVisualizations } from '../../visualize/visualizations.js';
import { EXIT } from './exit-codes.js';

/** The options of `ralph viz`. */
export interface VizOptions {
  /** The folder to write to (or check), relative to the working directory. */
  out: string;
  check?: boolean;
}

/** A path as the user would type it: relative to the working directory when it is inside it. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

const contentOf = (path: string): Promise<Buffer | null> => readFile(path).catch(() => null);

/**
 * `ralph viz`: writes the machine's diagrams and Stately code into `--out` (default `visualizations/` of the working
 * directory, which from a clone's root, where `npm run viz` runs, is the committed folder). With `--check` it writes
 * nothing and exits 1 when a file there is missing or differs byte for byte from what it would write, for CI.
 */
export async function vizCommand(options: VizOptions): Promise<number> {
  const dir = resolve(options.out);
  try {
    const files = await generateVisualizations();
    if (options.check === true) {
      const stale: string[] = [];
      for (const file of files) {
        const current = await contentOf(join(dir, file.name));
        if (current === null || !current.equals(Buffer.from(file.content)))
          stale.push(shown(join(dir, file.name)));
      }
      if (stale.length > 0) {
        process.stderr.write(
          `${stale.map((path) => `ralph viz --check: ${path} is stale or missing`).join('\n')}\nrun ralph viz${options.out === 'visualizations' ? '' : ` --out ${options.out}`} (npm run viz in a clone) to regenerate it\n`,
        );
        return EXIT.failed;
      }
      process.stderr.write(`ralph viz --check: ${shown(dir)} is up to date\n`);
      return EXIT.complete;
    }
    await mkdir(dir, { recursive: true });
    for (const file of files) {
      const path = join(dir, file.name);
      const current = await contentOf(path);
      if (current?.equals(Buffer.from(file.content))) {
        process.stderr.write(`ralph viz: ${shown(path)} is up to date\n`);
        continue;
      }
      await writeFile(path, file.content);
      process.stderr.write(`ralph viz: wrote ${shown(path)}\n`);
    }
    return EXIT.complete;
  } catch (error) {
    process.stderr.write(`ralph viz: ${error instanceof Error ? error.message : String(error)}\n`);
    return EXIT.failed;
  }
}
