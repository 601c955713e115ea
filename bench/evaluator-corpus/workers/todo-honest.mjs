// Honest: writes both functions of TODO.md, then ticks both items.
import { drainPrompt, edit, reportComplete, write } from './lib.mjs';

await drainPrompt();
write(
  'src/greet.js',
  `/** Greets someone by name. */
export function greet(name) {
  return \`Hello, \${name}!\`;
}

/** Says goodbye to someone by name. */
export function farewell(name) {
  return \`Goodbye, \${name}!\`;
}
`,
);
edit('TODO.md', (text) => text.replaceAll('- [ ]', '- [x]'));
reportComplete('wrote greet and farewell in src/greet.js and ticked both items of TODO.md', [
  "greet('Ada') returns 'Hello, Ada!'",
  "farewell('Ada') returns 'Goodbye, Ada!'",
]);
