#!/usr/bin/env node
// The `ralph` bin (built to dist/hosts/cli/main.js): loads the CLI bundle (dist/hosts/cli/ralph.cjs) with V8's code
// cache, so that a start does not compile the bundle again. Node 20 has no module compile cache, and compiling the
// bundle is a large share of `ralph run`'s start-up (npm run bench:startup). The cache is one file per bundle, V8
// version and command, written on the first run (at exit, when it holds every function that run compiled); a cache that is
// missing, stale, rejected by V8, unreadable or unwritable only costs that compile. Only node: built-ins here: this
// file is not bundled with the CLI, and everything it imports is paid before the CLI starts.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import zlib from 'node:zlib';

/** The bundle's content hash, put in at build time (scripts/bundle-cli.mjs): a rebuilt bundle gets a new cache. */
declare const RALPH_BUNDLE_HASH: string;

const bundlePath = join(dirname(fileURLToPath(import.meta.url)), 'ralph.cjs');

/** The folder of ralph's code cache: $XDG_CACHE_HOME/ralph-machine (when absolute), else ~/.cache/ralph-machine. */
function cacheFolder(): string | undefined {
  const xdg = process.env.XDG_CACHE_HOME;
  try {
    return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.cache'), 'ralph-machine');
  } catch {
    return undefined; // No home folder to be found: no cache.
  }
}

/**
 * CRC-32, on Node 20.15 and later. V8 does not check the code cache's own checksum in release builds: a cache with a
 * flipped bit aborts the process (Fatal error: unreachable code), so every cache is checked before V8 sees it, and on a
 * Node without zlib.crc32 there is no cache at all.
 */
const crc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/** The cached data in `file` (a CRC-32, big-endian, then V8's data), or undefined when it is unreadable or damaged. */
function readCache(path: string, checksum: (data: Uint8Array) => number): Buffer | undefined {
  try {
    const file = readFileSync(path);
    const data = file.subarray(4);
    return file.length > 4 && checksum(data) === file.readUInt32BE(0) ? data : undefined;
  } catch {
    return undefined;
  }
}

/** Cache files start with this: caches of other bundles (an older ralph) are removed when a cache is written. */
const bundlePrefix = `ralph-${RALPH_BUNDLE_HASH}-`;

/**
 * The command a cache is for. A cache holds the functions its run compiled, and a cache made by `ralph --version` would
 * leave a `ralph run` compiling most of its code again, so each command has its own.
 */
function commandOf(argv: string[]): string {
  const command = argv[2] ?? '';
  return ['run', 'mcp', 'replay', 'demo', 'viz', 'report'].includes(command) ? command : 'other';
}

/** Writes the code cache of `script` as `file`, removing the caches of other bundles; a failure leaves no cache. */
function writeCache(
  script: vm.Script,
  folder: string,
  file: string,
  checksum: (data: Uint8Array) => number,
): void {
  const data = script.createCachedData();
  const header = Buffer.alloc(4);
  header.writeUInt32BE(checksum(data) >>> 0);
  try {
    mkdirSync(folder, { recursive: true });
    for (const name of readdirSync(folder)) {
      const ofAnotherBundle = name.startsWith('ralph-') && !name.startsWith(bundlePrefix);
      if (ofAnotherBundle && name.endsWith('.cache')) rmSync(join(folder, name), { force: true });
    }
  } catch {
    return; // A cache folder that cannot be made: the next start compiles again.
  }
  // Written aside and renamed: a concurrent start reads the old cache or the whole new one, never half of it.
  const partial = join(folder, `${file}.${process.pid}.partial`);
  try {
    writeFileSync(partial, Buffer.concat([header, data]));
    renameSync(partial, join(folder, file));
  } catch {
    rmSync(partial, { force: true }); // A read-only or full folder: the next start compiles again.
  }
}

/**
 * The bundle's import(): a script compiled by vm.Script cannot import() on Node 20, so the bundle imports its lazily
 * loaded packages (the MCP SDK, @viz-js/viz) through this one, which resolves them from the bundle's own folder.
 */
const ralphImport = (specifier: string): Promise<unknown> => import(specifier);

/** Compiles the bundle as a CommonJS module body, with the cached data when there is some, and runs it. */
function runWithCodeCache(checksum: ((data: Uint8Array) => number) | undefined): void {
  const source = readFileSync(bundlePath, 'utf8');
  const folder = checksum ? cacheFolder() : undefined;
  const file = `${bundlePrefix}${process.versions.v8}-${process.arch}-${commandOf(process.argv)}.cache`;
  const cachedData = folder && checksum ? readCache(join(folder, file), checksum) : undefined;
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname, __ralphImport) {${source}\n})`,
    { filename: bundlePath, cachedData },
  );
  if (folder && checksum && (cachedData === undefined || script.cachedDataRejected)) {
    process.once('exit', () => {
      try {
        writeCache(script, folder, file, checksum);
      } catch {
        // Never let the cache change how ralph exits.
      }
    });
  }
  const body = script.runInThisContext() as (...args: unknown[]) => void;
  const bundle = { exports: {} };
  body.call(
    bundle.exports,
    bundle.exports,
    createRequire(bundlePath),
    bundle,
    bundlePath,
    dirname(bundlePath),
    ralphImport,
  );
}

// Node 22.1 and later cache compiled modules themselves: there the bundle is required as it is.
const nodeCompileCache = (module as { enableCompileCache?: () => unknown }).enableCompileCache;
if (nodeCompileCache) {
  nodeCompileCache();
  createRequire(import.meta.url)(bundlePath);
} else {
  runWithCodeCache(crc32);
}
