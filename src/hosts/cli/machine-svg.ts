import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../package-root.js';

/**
 * The machine's statechart the run page draws the path on: the package's `visualizations/ralph.svg` (`ralph viz`
 * writes it). Empty when the package has none, and the page then says the diagram is missing: a run is still worth
 * reporting without its picture.
 */
export function machineSvg(what: string): string {
  try {
    return readFileSync(join(packageRoot(what), 'visualizations', 'ralph.svg'), 'utf8');
  } catch {
    return '';
  }
}
