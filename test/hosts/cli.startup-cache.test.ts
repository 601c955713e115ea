import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Finished,
  makeWorkspace,
  PLAN_AGENT_COMMAND,
  ralph,
  type Workspace,
} from '../fixtures/cli-agents/harness.js';

// The bin compiles the CLI bundle with V8's code cache, kept in $XDG_CACHE_HOME/ralph-machine (code-cache-loader.ts).
// Whatever state that cache is in, ralph must run as it runs without one.

const root = fileURLToPath(new URL('../../', import.meta.url));
const folders: string[] = [];
const workspaces: Workspace[] = [];

afterEach(async () => {
  await Promise.all(workspaces.splice(0).map((workspace) => workspace.cleanup()));
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

/** A fresh $XDG_CACHE_HOME; ralph's cache goes in its ralph-machine folder. */
async function cacheHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'ralph-cache-'));
  folders.push(home);
  return home;
}

const cacheFiles = (home: string): string[] => {
  try {
    return readdirSync(join(home, 'ralph-machine')).filter((name) => name.endsWith('.cache'));
  } catch {
    return [];
  }
};

/** The one cache file of `home`, as a path. */
function theCache(home: string): string {
  const files = cacheFiles(home);
  expect(files).toHaveLength(1);
  return join(home, 'ralph-machine', files[0] as string);
}

/** A two-round `ralph run` of the plan agent, with `home` as the cache home; its output holds nothing variable. */
async function twoRounds(home: string): Promise<Finished> {
  const ws = await makeWorkspace(['continue', 'complete']);
  workspaces.push(ws);
  return ralph(['run', 'Finish in two rounds', '--agent-command', PLAN_AGENT_COMMAND, '--cwd', ws.dir], {
    env: { ...process.env, XDG_CACHE_HOME: home },
  });
}

/** The CLI bundle, whose SHA-256 a cache's header names. */
const bundle = readFileSync(join(root, 'dist/hosts/cli/ralph.cjs'));
const bundleDigest = createHash('sha256').update(bundle).digest();

/** `data`'s CRC-32, big-endian. */
const crcOf = (data: Buffer): Buffer => {
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(data) >>> 0);
  return crc;
};

/** Writes `data` as a cache file would hold it: the bundle's SHA-256, the data's CRC-32, then the data. */
function writeChecked(path: string, data: Buffer): void {
  writeFileSync(path, Buffer.concat([bundleDigest, crcOf(data), data]));
}

/**
 * V8's cached data for other code of the bundle's length, wrapped as the loader wraps the bundle: V8 checks a
 * cache only against the source's length, so this data passes for the bundle's. Made by a plain `node`, whose V8
 * flags (which V8 also checks) are those of the ralph it is planted for. The code prints a line and exits.
 */
function plantedData(): Buffer {
  const prefix = '(function (exports, require, module, __filename, __dirname, __ralphImport) {';
  const payload = 'process.stdout.write("planted code ran\\n");process.exit(0);';
  const length = bundle.toString('utf8').length;
  const maker = `const vm = require('node:vm');
    const code = ${JSON.stringify(prefix + payload)} + ' '.repeat(${length} - ${payload.length}) + '\\n})';
    process.stdout.write(new vm.Script(code).createCachedData().toString('base64'));`;
  const made = spawnSync(process.execPath, ['-e', maker], { encoding: 'utf8' });
  expect(made.status, made.stderr).toBe(0);
  return Buffer.from(made.stdout, 'base64');
}

const noCache = await (async () => {
  const home = await cacheHome();
  const out = await twoRounds(home);
  return { out, cache: readFileSync(theCache(home)) };
})();

describe('ralph start-up with the code cache', () => {
  it('runs without a cache, and leaves one for the next start', () => {
    expect(noCache.out.code).toBe(0);
    expect(noCache.out.stdout).toContain('Ralph complete');
    expect(noCache.cache.length).toBeGreaterThan(4);
  });

  it('runs from the cache as it runs without one, and keeps the cache as it was', async () => {
    const home = await cacheHome();
    await twoRounds(home);
    const cache = theCache(home);
    const before = statSync(cache);

    const cached = await twoRounds(home);

    expect(cached).toEqual(noCache.out);
    // Rewritten only when missing or rejected: the same file, untouched, means V8 took it.
    const after = statSync(cache);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  });

  it('loads the lazily imported Graphviz from a cached start (ralph viz)', async () => {
    const home = await cacheHome();
    const env = { ...process.env, XDG_CACHE_HOME: home };
    const args = ['viz', '--check', '--out', join(root, 'visualizations')];
    const first = await ralph(args, { env });
    const cache = theCache(home);
    const before = statSync(cache).mtimeMs;

    const cached = await ralph(args, { env });

    expect(first.code).toBe(0);
    expect(cached).toEqual(first);
    expect(statSync(cache).mtimeMs).toBe(before);
  });

  it('keeps a cache per command: a cache made by ralph --version is not the one ralph run starts from', async () => {
    const home = await cacheHome();
    await ralph(['--version'], { env: { ...process.env, XDG_CACHE_HOME: home } });
    await twoRounds(home);

    expect(
      cacheFiles(home)
        .map((name) => name.replace(/^.*-/, ''))
        .sort(),
    ).toEqual(['other.cache', 'run.cache']);
  });

  it('runs past a stale cache (V8 rejects data made for another source), and replaces it', async () => {
    const home = await cacheHome();
    await twoRounds(home);
    const cache = theCache(home);
    const stale = new vm.Script('(function () { return "another bundle"; })').createCachedData();
    writeChecked(cache, stale);

    const out = await twoRounds(home);

    expect(out).toEqual(noCache.out);
    expect(readFileSync(cache).subarray(4).equals(stale)).toBe(false);
  });

  const damages: [string, (cache: Buffer) => Buffer][] = [
    [
      'bits flipped inside it',
      (cache) => Buffer.from(cache.map((byte, i) => (i > 200 && i % 997 === 0 ? byte ^ 0xff : byte))),
    ],
    ['cut short', (cache) => cache.subarray(0, Math.floor(cache.length / 2))],
    ['only two bytes', (cache) => cache.subarray(0, 2)],
    ['empty', () => Buffer.alloc(0)],
    ['not a cache at all', () => Buffer.from('not V8 code cache data, just text\n'.repeat(100))],
  ];
  for (const [damage, damaged] of damages) {
    it(`runs past a corrupt cache (${damage}), and replaces it with a good one`, async () => {
      const home = await cacheHome();
      await twoRounds(home);
      const cache = theCache(home);
      const good = readFileSync(cache);
      writeFileSync(cache, damaged(good));

      const out = await twoRounds(home);

      expect(out).toEqual(noCache.out);
      expect(readFileSync(cache).length).toBeGreaterThan(4);
      expect(readFileSync(cache).equals(damaged(good))).toBe(false);
    });
  }

  it("a cache made from other code of the same length, with the right name and checksum but not the bundle's hash, is not run", async () => {
    const home = await cacheHome();
    await twoRounds(home);
    const cache = theCache(home);
    const planted = plantedData();
    // The name and the CRC-32 of the data, all a cache had to match before it was bound to the bundle's hash.
    writeFileSync(cache, Buffer.concat([crcOf(planted), planted]));

    const out = await twoRounds(home);

    expect(out.stdout).not.toContain('planted code ran');
    expect(out).toEqual(noCache.out);
  });

  it('makes its cache folder 0700, and its cache files 0600', async () => {
    const home = await cacheHome();
    await twoRounds(home);
    expect(statSync(join(home, 'ralph-machine')).mode & 0o777).toBe(0o700);
    expect(statSync(theCache(home)).mode & 0o777).toBe(0o600);
  });

  const unsafeFolders: [string, (folder: string) => void][] = [
    ['writable by others', (folder) => chmodSync(folder, 0o777)],
    ["another user's", (folder) => chownSync(folder, 65_534, 65_534)],
  ];
  for (const [unsafe, makeUnsafe] of unsafeFolders) {
    it(`uses no cache folder that is ${unsafe}: a cache planted there does not run, and none is written`, async () => {
      const home = await cacheHome();
      await twoRounds(home);
      const cache = theCache(home);
      const planted = plantedData();
      writeChecked(cache, planted);
      const folder = join(home, 'ralph-machine');
      makeUnsafe(folder);
      const before = readdirSync(folder);

      const out = await twoRounds(home);
      await rm(cache);
      const again = await twoRounds(home);

      expect(out.stdout).not.toContain('planted code ran');
      expect(out).toEqual(noCache.out);
      expect(again).toEqual(noCache.out);
      expect(readdirSync(folder)).toEqual(before.filter((name) => name !== basename(cache)));
    });
  }

  /**
   * Runs `ralph --version` as Node 22.1 and later would: with `module.enableCompileCache` (which Node 20 lacks) put in
   * by a preload that logs the folder it is given; resolves with the folders logged.
   */
  async function withNodeCompileCache(home: string): Promise<string[]> {
    const preload = join(home, 'compile-cache-preload.mjs');
    const log = join(home, 'compile-cache.log');
    await writeFile(
      preload,
      `import module from 'node:module';
import { appendFileSync } from 'node:fs';
module.enableCompileCache = (dir) => {
  appendFileSync(${JSON.stringify(log)}, String(dir) + '\\n');
  return { status: 0 };
};
`,
    );
    const out = await ralph(['--version'], {
      env: { ...process.env, XDG_CACHE_HOME: home, NODE_OPTIONS: `--import ${preload}` },
    });
    expect(out.code, out.stderr).toBe(0);
    expect(cacheFiles(home)).toEqual([]);
    try {
      return readFileSync(log, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  }

  it("on Node 22.1 and later, gives Node's compile cache ralph's private folder, not the shared $TMPDIR default", async () => {
    const home = await cacheHome();
    expect(await withNodeCompileCache(home)).toEqual([join(home, 'ralph-machine', 'node-compile-cache')]);
    expect(statSync(join(home, 'ralph-machine')).mode & 0o777).toBe(0o700);
  });

  it('on Node 22.1 and later, turns on no compile cache when the folder is writable by others', async () => {
    const home = await cacheHome();
    await mkdir(join(home, 'ralph-machine'), { mode: 0o777 });
    chmodSync(join(home, 'ralph-machine'), 0o777);
    expect(await withNodeCompileCache(home)).toEqual([]);
  });

  it('runs when the cache folder cannot be made or written (its place is a file), and writes nothing', async () => {
    const home = await cacheHome();
    const blocked = join(home, 'a-file');
    await writeFile(blocked, 'in the way');

    const out = await twoRounds(blocked);

    expect(out).toEqual(noCache.out);
    expect(readdirSync(home)).toEqual(['a-file']);
  });

  it('runs when the cache cannot be read (its place is a folder)', async () => {
    const home = await cacheHome();
    await twoRounds(home);
    const cache = theCache(home);
    await rm(cache);
    await mkdir(cache);

    const out = await twoRounds(home);

    expect(out).toEqual(noCache.out);
    expect(statSync(cache).isDirectory()).toBe(true);
    expect(readdirSync(join(home, 'ralph-machine'))).toEqual([basename(cache)]);
  });

  it("removes the caches of other bundles (an older ralph's) when it writes its own", async () => {
    const home = await cacheHome();
    await twoRounds(home);
    const cache = theCache(home);
    const older = 'ralph-0123456789abcdef-11.3.244.8-node.38-x64-run.cache';
    await rename(cache, join(home, 'ralph-machine', older));

    await twoRounds(home);

    expect(cacheFiles(home)).toEqual([basename(cache)]);
  });
});
