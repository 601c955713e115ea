import { lstatSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** Where one sandboxed process may write and what it may see: the mounts of its bubblewrap sandbox. */
export interface SandboxSpec {
  /** `none`: a network namespace of its own, with nothing but its own loopback. */
  network: 'keep' | 'none';
  /** The private home (a tmpfs at the user's home path, so paths in the agent's config still resolve). */
  home: string;
  /** Bound writable at their own paths: the workspace, the round's folder, the git metadata of a worktree. */
  writable: readonly string[];
  /** Bound read-only over what came before, when they exist: a writable folder's .git/config and hooks. */
  readOnly: readonly string[];
  /** Bound writable inside the private home when they exist: what the agent's own CLI needs (`~/.claude`). */
  homeBinds: readonly string[];
  /** Hidden wherever they are (a folder becomes an empty tmpfs, a file /dev/null), but for what is bound below. */
  hide: readonly string[];
  /** The process's working folder. */
  cwd: string;
  /** The bubblewrap program; default `bwrap` on PATH. */
  bwrap?: string;
  /** Files the process must not leave behind where there were none (a planted git pointer): removed once it is gone. */
  removeIfMade?: readonly string[];
}

/**
 * The sandbox's PID 1: it runs the command with the caller's stdin and exits with its status as soon as the
 * command exits. PID 1 leaving tears the namespace down, so whatever the command left behind (a daemon that
 * called setsid) dies with it. It traps TERM, INT and HUP with a no-op, so the group's signals reach the command
 * (a member of the same group) and it gets its grace; a PID 1 without handlers would not even see them.
 */
const PID1 =
  'trap : TERM INT HUP; exec 3<&0; "$@" <&3 3<&- & p=$!; exec 3<&-; ' +
  'while :; do wait "$p"; s=$?; kill -0 "$p" 2>/dev/null || exit "$s"; done';

/**
 * Who the command is inside: no capability at all, so it cannot unmount the private home or a read-only bind to see
 * what lies under it. Started by root, it is an ordinary user inside (uid and gid 1000, mapped to root outside, so what
 * it writes in the workspace is root's as before): bubblewrap keeps root's capabilities in the namespace otherwise,
 * and an agent CLI's own nested sandbox needs an unprivileged user to start.
 */
export const SANDBOX_USER: readonly string[] = [
  '--cap-drop',
  'ALL',
  ...(process.getuid?.() === 0 ? ['--unshare-user', '--uid', '1000', '--gid', '1000'] : []),
];

type Kind = 'dir' | 'file' | 'missing';

function kindOf(path: string): Kind {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat === undefined ? 'missing' : stat.isDirectory() ? 'dir' : 'file';
}

/** How deep a path is: a parent's mount must come before its children's, or it would cover them. */
const depthOf = (path: string): number => path.split(sep).filter(Boolean).length;

/** Whether `inner` is `outer` or lies inside it (a folder named `..x` inside it included). */
export function isWithin(inner: string, outer: string): boolean {
  const rel = relative(outer, inner);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * A private /run (and /var/run where it is a folder of its own): a read-only file system does not stop a connect()
 * to the Unix sockets in it, the daemons' doors (Docker's, which is root; the local Postgres a worker may use; the
 * system bus; the user's session in /run/user), and a network namespace does not either. Where the network is kept
 * and /etc/resolv.conf lives in /run (systemd-resolved), that one file is bound back, so names still resolve.
 */
function privateRun(network: SandboxSpec['network']): string[] {
  const runs = ['/run', '/var/run'].filter((path) => {
    try {
      return lstatSync(path).isDirectory();
    } catch {
      return false;
    }
  });
  const args = runs.flatMap((path) => ['--tmpfs', path]);
  if (network === 'keep') {
    const resolvConf = realPathOrUndefined('/etc/resolv.conf');
    if (resolvConf !== undefined && runs.some((path) => isWithin(resolvConf, path)))
      args.push('--ro-bind', resolvConf, resolvConf);
  }
  return args;
}

function realPathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The bubblewrap command line that runs `argv` in the sandbox: every namespace of its own (the network kept unless
 * `none`), the root file system read-only, a fresh /dev, /proc, /tmp, /run and home, then the spec's mounts, parents
 * before children: a hidden path covers all that lies under it but what is bound deeper.
 */
export function sandboxArgv(argv: readonly string[], spec: SandboxSpec): string[] {
  const home = resolve(spec.home);
  for (const path of spec.writable) {
    if (home !== '/' && isWithin(home, resolve(path)))
      throw new Error(`the sandbox cannot make ${path} writable: it holds the home folder ${home}`);
  }
  const mounts: { path: string; args: string[] }[] = [];
  if (home !== '/' && kindOf(home) === 'dir') mounts.push({ path: home, args: ['--tmpfs', home] });
  for (const path of spec.homeBinds.map((p) => resolve(p))) {
    if (kindOf(path) !== 'missing') mounts.push({ path, args: ['--bind', path, path] });
  }
  for (const path of spec.writable.map((p) => resolve(p)))
    mounts.push({ path, args: ['--bind', path, path] });
  for (const path of spec.readOnly.map((p) => resolve(p))) {
    if (kindOf(path) !== 'missing') mounts.push({ path, args: ['--ro-bind', path, path] });
  }
  for (const path of spec.hide.map((p) => resolve(p))) {
    const kind = kindOf(path);
    if (kind === 'dir') mounts.push({ path, args: ['--tmpfs', path] });
    else if (kind === 'file') mounts.push({ path, args: ['--ro-bind', '/dev/null', path] });
  }
  // Parents first, so a hidden state folder holding a worker's worktree still lets the worktree be bound over it.
  // Stable: at one depth the order above holds (bound writable, then made read-only, then hidden).
  mounts.sort((a, b) => depthOf(a.path) - depthOf(b.path));
  const varTmp = kindOf('/var/tmp') === 'dir' ? ['--tmpfs', '/var/tmp'] : [];
  const run = privateRun(spec.network);
  return [
    spec.bwrap ?? 'bwrap',
    '--unshare-all',
    ...(spec.network === 'keep' ? ['--share-net'] : []),
    '--as-pid-1',
    ...SANDBOX_USER,
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    ...varTmp,
    ...run,
    ...mounts.flatMap((mount) => mount.args),
    '--chdir',
    resolve(spec.cwd),
    '--',
    '/bin/sh',
    '-c',
    PID1,
    'ralph-sandbox',
    ...argv,
  ];
}
