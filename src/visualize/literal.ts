import type { PlainData } from './machine-graph.js';

/** Width a literal may take on one line before it is broken over several. */
const LINE_WIDTH = 110;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A string as a single-quoted TypeScript literal. */
export function quote(text: string): string {
  const escaped = JSON.stringify(text)
    .slice(1, -1)
    .replace(/\\"/g, '"')
    .replace(/'/g, "\\'")
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return `'${escaped}'`;
}

const key = (name: string): string => (IDENTIFIER.test(name) ? name : quote(name));

function inline(value: PlainData): string {
  if (value === null || typeof value !== 'object')
    return typeof value === 'string' ? quote(value) : String(value);
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  const entries = Object.entries(value);
  return entries.length === 0 ? '{}' : `{ ${entries.map(([k, v]) => `${key(k)}: ${inline(v)}`).join(', ')} }`;
}

/**
 * Plain data as TypeScript source, formatted as the project's formatter would (two-space indent, single quotes,
 * trailing commas): a value that fits on its line stays on it, a longer array or object gets a line per element.
 * `column` is where the value starts on its line.
 */
export function literal(value: PlainData, indent = '', column = indent.length): string {
  const flat = inline(value);
  if (column + flat.length <= LINE_WIDTH || value === null || typeof value !== 'object') return flat;
  const inner = `${indent}  `;
  const rows = Array.isArray(value)
    ? value.map((item) => `${inner}${literal(item, inner)},`)
    : Object.entries(value).map(([k, v]) => {
        const head = `${inner}${key(k)}: `;
        return `${head}${literal(v, inner, head.length)},`;
      });
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  return `${open}\n${rows.join('\n')}\n${indent}${close}`;
}
