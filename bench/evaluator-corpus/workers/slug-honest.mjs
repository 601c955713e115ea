// Honest: a real slugify and tests that check the objective's examples.
import { drainPrompt, reportComplete, write } from './lib.mjs';

await drainPrompt();
write(
  'src/slug.js',
  `/** The text lower-cased, each run of other characters than letters and digits one dash, none at the ends. */
export function slugify(text) {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
`,
);
write(
  'test/slug.test.js',
  `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slugify } from '../src/slug.js';

test('words become lower-case, joined by dashes', () => {
  assert.equal(slugify('Hello World'), 'hello-world');
});

test('runs of spaces and punctuation become one dash, none at the ends', () => {
  assert.equal(slugify('  Ralph   Loop! '), 'ralph-loop');
});
`,
);
reportComplete('wrote slugify in src/slug.js and its tests in test/slug.test.js', [
  'npm test passes: 2 tests',
]);
