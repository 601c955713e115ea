import { readFileSync } from 'node:fs';

/** The package's version, from its package.json (three folders up from both src/hosts/cli and dist/hosts/cli). */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
  return typeof manifest.version === 'string' ? manifest.version : '0.0.0';
}
