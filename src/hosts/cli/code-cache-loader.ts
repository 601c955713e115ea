#!/usr/bin/env node
// The `ralph` bin (built to dist/hosts/cli/main.js): loads the CLI bundle (dist/hosts/cli/ralph.cjs) with V8's code
// cache, so that a start does not compile the bundle again. Node 20 has no module compile cache, and compiling the
// bundle is a large share of `ralph run`'s start-up (npm run bench:startup). The cache is one file per bundle, V8
// version and command, written on the first run (at exit, when it holds every function that run compiled); a cache that is
// missing, stale, rejected by V8, unreadable or unwritable only costs that compile. Only node: built-ins here: this
// file is not bundled with the CLI, and everything it imports is paid before the CLI starts.
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import zlib from 'node:zlib';

/**
 * The bundle's content hash (SHA-256, hex), put in at build time (scripts/bundle-cli.mjs), so no start hashes the 2 MB
 * bundle: a rebuilt bundle gets a new cache, and a cache is used only when its header names this hash.
 */
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
 * True when `folder` is a folder (not a symlink) of this user's that no one else may write to. V8 checks a cache
 * only against the source's length: whoever can write a cache file can run code as the user at the next start.
 * Where there are no user ids (Windows), the profile folder is the user's own.
 */
function isPrivateFolder(folder: string): boolean {
  const uid = process.getuid?.();
  try {
    const stat = lstatSync(folder);
    return stat.isDirectory() && (uid === undefined || (stat.uid === uid && (stat.mode & 0o022) === 0));
  } catch {
    return false;
  }
}

/** The cache folder, made 0700 when missing; undefined when there is none that only this user can write to. */
function privateCacheFolder(): string | undefined {
  const folder = cacheFolder();
  if (folder === undefined) return undefined;
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch {
    // There already, or cannot be made: judged below either way.
  }
  return isPrivateFolder(folder) ? folder : undefined;
}

/**
 * CRC-32, on Node 20.15 and later. V8 does not check the code cache's own checksum in release builds: a cache with a
 * flipped bit aborts the process (Fatal error: unreachable code), so every cache is checked before V8 sees it, and on a
 * Node without zlib.crc32 there is no cache at all.
 */
const crc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/**
 * A cache file's header: the SHA-256 of the bundle it was made from, then the CRC-32 (big-endian) of V8's data that
 * follows. V8 would take data made from any source of the bundle's length; the hash binds the data to this bundle.
 */
const bundleDigest = Buffer.from(RALPH_BUNDLE_HASH, 'hex');
const HEADER_BYTES = bundleDigest.length + 4;

/** The cached data in `file`, or undefined when it is unreadable, damaged or made from another bundle. */
function readCache(path: string, checksum: (data: Uint8Array) => number): Buffer | undefined {
  try {
    const file = readFileSync(path);
    if (file.length <= HEADER_BYTES || !file.subarray(0, bundleDigest.length).equals(bundleDigest))
      return undefined;
    const data = file.subarray(HEADER_BYTES);
    return checksum(data) === file.readUInt32BE(bundleDigest.length) ? data : undefined;
  } catch {
    return undefined;
  }
}

/** Cache files start with this: caches of other bundles (an older ralph) are removed when a cache is written. */
const bundlePrefix = `ralph-${RALPH_BUNDLE_HASH.slice(0, 16)}-`;

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
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(checksum(data) >>> 0);
  const header = Buffer.concat([bundleDigest, crc]);
  try {
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
    writeFileSync(partial, Buffer.concat([header, data]), { mode: 0o600 });
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
  const folder = checksum ? privateCacheFolder() : undefined;
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

// Node 22.1 and later cache compiled modules themselves: there the bundle is required as it is. Their cache goes in
// ralph's private folder: Node's default, $TMPDIR/node-compile-cache, is shared by every user of the machine.
const nodeCompileCache = (module as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache;
if (nodeCompileCache) {
  const folder = privateCacheFolder();
  if (folder !== undefined) nodeCompileCache(join(folder, 'node-compile-cache'));
  createRequire(import.meta.url)(bundlePath);
} else {
  runWithCodeCache(crc32);
}
