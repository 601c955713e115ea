import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { VISUALIZATION_FILES } from '../../src/visualize/visualizations.js';
import { CLI, ralph } from '../fixtures/cli-agents/harness.js';

const committed = fileURLToPath(new URL('../../visualizations/', import.meta.url));
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Runs `ralph viz` from a folder of its own, so that the paths it prints are the absolute ones it was given. */
async function viz(...args: string[]) {
  return ralph(['viz', ...args], { cwd: await tempDir() });
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-viz-'));
  dirs.push(dir);
  return dir;
}

// The built bin, as users run it: its bundle loads the WASM Graphviz from node_modules only for this command.
describe('ralph viz', () => {
  it('writes the four files into visualizations/ of the working directory, the same bytes as the committed ones', async () => {
    const cwd = await tempDir();
    const out = await ralph(['viz'], { cwd });
    expect(out.code).toBe(0);
    expect(out.stderr.split('\n').filter(Boolean)).toEqual(
      VISUALIZATION_FILES.map((name) => `ralph viz: wrote visualizations/${name}`),
    );
    expect((await readdir(join(cwd, 'visualizations'))).sort()).toEqual([...VISUALIZATION_FILES].sort());
    for (const name of VISUALIZATION_FILES)
      expect(await readFile(join(cwd, 'visualizations', name)), name).toEqual(
        await readFile(join(committed, name)),
      );
  });

  it('--out writes to the folder given, creating it, and leaves files that are already current alone', async () => {
    const dir = join(await tempDir(), 'nested', 'out');
    expect((await viz('--out', dir)).code).toBe(0);
    const again = await viz('--out', dir);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`ralph viz: ${join(dir, 'ralph.svg')} is up to date`);
  });

  it('--check exits 0 on a current folder and 1, naming each stale or missing file, on any other', async () => {
    const dir = await tempDir();
    expect((await viz('--out', dir)).code).toBe(0);
    const current = await viz('--out', dir, '--check');
    expect(current).toMatchObject({ code: 0, stdout: '' });
    expect(current.stderr).toBe(`ralph viz --check: ${dir} is up to date\n`);

    await writeFile(join(dir, 'ralph.mmd'), `${await readFile(join(dir, 'ralph.mmd'), 'utf8')}\n`);
    await rm(join(dir, 'ralph.svg'));
    const stale = await viz('--out', dir, '--check');
    expect(stale.code).toBe(1);
    expect(stale.stderr).toBe(
      `ralph viz --check: ${join(dir, 'ralph.mmd')} is stale or missing\nralph viz --check: ${join(dir, 'ralph.svg')} is stale or missing\nrun ralph viz --out ${dir} (npm run viz in a clone) to regenerate it\n`,
    );
    // --check writes nothing.
    await expect(readFile(join(dir, 'ralph.svg'))).rejects.toThrow();
  });

  it('fails with exit 1 and says why when the folder cannot be written', async () => {
    const file = join(await tempDir(), 'a-file');
    await writeFile(file, '');
    const out = await viz('--out', file);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/^ralph viz: EEXIST: file already exists, mkdir /);
  });

  it('leaves the WASM Graphviz out of the CLI bundle: it loads from node_modules, and only for ralph viz', async () => {
    // The bin (CLI) loads the bundle beside it, which imports its external packages through the bin's import().
    const bundle = await readFile(join(dirname(CLI), 'ralph.cjs'), 'utf8');
    expect(bundle).toContain('__ralphImport("@viz-js/viz")');
    expect(bundle).not.toContain('graphvizVersion');
  });
});
