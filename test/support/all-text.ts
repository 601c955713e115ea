import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir`, recursively, as text (binary files too: a secret would show in them as text). */
export function allText(dir: string): string {
  let text = '';
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) text += readFileSync(join(entry.parentPath, entry.name), 'latin1');
  return text;
}
