// Installs the pinned peer Ralph loops into .bench-cache/peers/ (git ignores it) for the peer benchmark only: they are
// never dependencies of the package. --ignore-scripts because ralph-starter's preinstall (`npx only-allow pnpm`) fails
// under npm, and no peer needs an install script: ralphy-cli ships its compiled binaries in the tarball and Bun (which
// ralph-tui runs on) comes ready-built in its @oven platform package.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The peer versions the benchmark measures; change them here (and in BENCHMARKS.md) to move to newer ones. */
export const PEER_VERSIONS = { 'ralphy-cli': '4.7.2', 'ralph-tui': '0.11.0', 'ralph-starter': '0.5.2' };
/** The Bun that runs ralph-tui (its engines field asks for bun >= 1.3.6). */
export const BUN_VERSION = '1.4.4';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** Where the peers are installed. */
export const PEERS_CACHE = join(root, '.bench-cache', 'peers');

/** Bun's prebuilt package for this machine, or undefined where Bun publishes none. */
function bunPackage() {
  const arch = { x64: 'x64', arm64: 'aarch64' }[process.arch];
  if (arch === undefined || !['linux', 'darwin'].includes(process.platform)) return undefined;
  const avx2 =
    process.platform !== 'linux' || arch !== 'x64' || /\bavx2\b/.test(readFileSync('/proc/cpuinfo', 'utf8'));
  return `@oven/bun-${process.platform}-${arch}${avx2 ? '' : '-baseline'}`;
}

/** Installs the pinned peers unless this exact set is already there; returns the paths the benchmark runs. */
export function installPeers() {
  const bun = bunPackage();
  const wanted = { ...PEER_VERSIONS, ...(bun ? { [bun]: BUN_VERSION } : {}) };
  const stamp = join(PEERS_CACHE, 'installed.json');
  if (!(existsSync(stamp) && readFileSync(stamp, 'utf8') === JSON.stringify(wanted))) {
    mkdirSync(PEERS_CACHE, { recursive: true });
    writeFileSync(join(PEERS_CACHE, 'package.json'), '{ "name": "ralph-peers-cache", "private": true }\n');
    process.stderr.write(
      `peers: installing ${Object.entries(wanted)
        .map(([n, v]) => `${n}@${v}`)
        .join(', ')}\n`,
    );
    execFileSync(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--prefix',
        PEERS_CACHE,
        ...Object.entries(wanted).map(([n, v]) => `${n}@${v}`),
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    writeFileSync(stamp, JSON.stringify(wanted));
  }
  const modules = join(PEERS_CACHE, 'node_modules');
  const ralphyArch = { x64: 'x64', arm64: 'arm64' }[process.arch];
  const ralphyOs = { linux: 'linux', darwin: 'darwin' }[process.platform];
  return {
    ralphyBinary: join(modules, 'ralphy-cli', 'dist', `ralphy-${ralphyOs}-${ralphyArch}`),
    ralphyWrapper: join(modules, 'ralphy-cli', 'bin.js'),
    ralphTui: join(modules, 'ralph-tui', 'dist', 'cli.js'),
    ralphStarter: join(modules, 'ralph-starter', 'dist', 'cli.js'),
    bunBin: bun ? join(modules, ...bun.split('/'), 'bin') : undefined,
  };
}
