import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { machineHash } from '../../src/inspect/machine-hash.js';
import { ralphMachine } from '../../src/machines/ralph.machine.js';
import { generateVisualizations, VISUALIZATION_FILES } from '../../src/visualize/visualizations.js';

const folder = fileURLToPath(new URL('../../visualizations/', import.meta.url));

test('the committed visualizations/ are what the generator makes from the machine today, byte for byte', async () => {
  const generated = await generateVisualizations();
  expect(generated.map((file) => file.name)).toEqual([...VISUALIZATION_FILES]);
  const stale: string[] = [];
  for (const file of generated) {
    const committed = await readFile(`${folder}${file.name}`).catch(() => null);
    if (committed === null || !committed.equals(Buffer.from(file.content)))
      stale.push(`visualizations/${file.name}`);
  }
  expect(
    stale,
    'stale against src/machines/ralph.machine.ts: run `npm run viz` and commit visualizations/',
  ).toEqual([]);
});

test('the generator is deterministic: two runs give the same bytes', async () => {
  const [first, second] = [await generateVisualizations(), await generateVisualizations()];
  expect(second).toEqual(first);
});

test("docs/ralph.svg, the statechart page's picture of the machine, is the generated SVG (npm run docs copies it)", async () => {
  const svg = (await generateVisualizations()).find((file) => file.name === 'ralph.svg');
  const docs = await readFile(fileURLToPath(new URL('../../docs/ralph.svg', import.meta.url)));
  expect(docs.equals(Buffer.from(svg?.content ?? '')), 'stale: run `npm run docs` and commit docs/').toBe(
    true,
  );
});

test("docs/demo-report.png, the README's screenshot, was taken of today's machine (npm run docs records its hash)", async () => {
  const sidecar = await readFile(
    fileURLToPath(new URL('../../docs/demo-report.json', import.meta.url)),
    'utf8',
  )
    .then((text) => JSON.parse(text) as { machineHash?: unknown })
    .catch(() => ({ machineHash: 'missing: docs/demo-report.json' }));
  expect(sidecar.machineHash, 'stale: run `npm run docs` and commit docs/').toBe(machineHash(ralphMachine));
});
