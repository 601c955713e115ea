import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import type { RalphSandbox } from '../contract/sandbox.js';
import { isWithin, type SandboxSpec } from './sandbox-argv.js';
import { bwrapProgram } from './sandbox-check.js';
import { sandboxEnv } from './sandbox-env.js';
import { toolFoldersUnder } from './sandbox-tools.js';

/**
 * What no bind of the home may uncover: keys, cloud and cluster credentials, registry tokens. The private home
 * hides them already; these are hidden again in case a tool's folder or the workspace holds one.
 */
export const HOME_SECRETS: readonly string[] = [
  '.ssh',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.gnupg',
  '.kube',
  '.docker',
  '.netrc',
  '.git-credentials',
  '.config/gh',
  '.npmrc',
  '.pypirc',
  '.ralph',
];

/** Ralph's own state folder of this user (`~/.ralph`: recordings, a worker's clones): hidden from every sandbox. */
export const ralphStateFolder = (): string => join(homedir(), '.ralph');

/** The private folders of the sandbox: a program there (a script in a temp folder) is bound in with its folder. */
const PRIVATE_TEMP = ['/tmp', '/var/tmp'];

/**
 * The folders of the programs and files argv names under /tmp, bound read-only so the command still finds them; but
 * not one that lies in a folder bound writable (the round's folder, whose schema file a preset names; a workspace in
 * /tmp): bound read-only over it, it would take the writing away.
 */
function tempFoldersOf(programs: readonly string[], writable: readonly string[]): string[] {
  return programs.flatMap((path) => {
    if (!isAbsolute(path) || !PRIVATE_TEMP.some((dir) => isWithin(path, dir))) return [];
    if (writable.some((dir) => isWithin(path, resolve(dir)))) return [];
    const stat = statSync(path, { throwIfNoEntry: false });
    // A file with its folder (a script imports its neighbours); a folder as it is (ralph's package installed there).
    return stat?.isFile() ? [dirname(path)] : stat?.isDirectory() ? [path] : [];
  });
}

/** What one process of a run needs of the sandbox besides the run's settings. */
export interface ProcessSandboxNeeds {
  /** Its working folder, the workspace. */
  cwd: string;
  /** False for an evaluator: the workspace is bound read-only. */
  writesWorkspace: boolean;
  /** More folders it may write (the round's folder, an agent's config folder named by its environment). */
  writable?: readonly string[];
  /** More paths bound read-only over what came before (the round folder's owner record). */
  readOnly?: readonly string[];
  /** Paths relative to the home (or absolute) that the agent's CLI keeps its own state in. */
  home?: readonly string[];
  /**
   * The files it runs: its argv's words and ralph's own package (the example agent, `ralph report-tool`). One under
   * the home or /tmp, private in the sandbox, is bound read-only with its folder.
   */
  programs?: readonly string[];
  /** Environment names (or `PREFIX*`) the process keeps besides the base list and the run's own. */
  env?: readonly string[];
}

const isDir = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true;

function readLine(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').split('\n')[0]?.trim() || undefined;
  } catch {
    return undefined;
  }
}

/** What a workspace's git metadata adds to its sandbox. */
interface GitMounts {
  /** Written with the workspace (read-only for an evaluator): a worktree's own git folder, what a commit writes. */
  metadata: string[];
  /** Bound read-only first, so that the metadata is bound writable over it: a worktree's common git folder. */
  base: string[];
  /** Bound read-only over the metadata: what ralph's own git would read or run. */
  protect: string[];
  /** Pointers a repository's git folder must not gain: removed after the process if it made them. */
  planted: string[];
}

/**
 * The folder, made when it is not there: a bare repository has no `logs` until a reflog is written, and a commit
 * in its worktree, inside the sandbox, could not make it in the read-only common folder.
 */
function madeFolder(path: string): string[] {
  try {
    mkdirSync(path, { recursive: true });
    return [path];
  } catch {
    return [];
  }
}

/** The common folder's parts a commit in a worktree writes: its objects, its refs and their logs. */
const COMMIT_WRITES = ['objects', 'refs', 'logs'];

/**
 * The git metadata a workspace needs. A repository's own `.git` folder lies inside it. A worktree's `.git` file
 * points to its private folder, written with it, and that to the common one, shared by every worktree of the
 * repository: it is bound read-only but for what a commit writes (objects, refs, logs), so that an agent can commit
 * but not change another worktree's folder or plant a `commondir` there. Bound read-only over the rest: every git
 * folder's `config`, `config.worktree` and `hooks`, the `.git` file and the `commondir` file, since ralph's own git
 * commands (a batch's commit, the fingerprint) run outside the sandbox and would run what an agent wrote there or
 * follow a pointer it rewrote to a git folder of its own.
 */
function gitMounts(cwd: string): GitMounts {
  const dotGit = join(cwd, '.git');
  const protect = (dir: string) => [join(dir, 'config'), join(dir, 'config.worktree'), join(dir, 'hooks')];
  // A repository's own folder is bound over itself, so it is a mount the agent cannot rename away and replace
  // with one of its own (whose config the user's next git command outside would follow); a `commondir` it plants
  // there, which would point git elsewhere, is removed once the process is gone.
  if (isDir(dotGit))
    return { metadata: [dotGit], base: [], protect: protect(dotGit), planted: [join(dotGit, 'commondir')] };
  const none: GitMounts = { metadata: [], base: [], protect: [], planted: [] };
  const pointer = readLine(dotGit);
  if (pointer === undefined || !pointer.startsWith('gitdir:')) return none;
  const gitDir = resolve(cwd, pointer.slice('gitdir:'.length).trim());
  if (!isDir(gitDir)) return none;
  const pointers = [dotGit, join(gitDir, 'commondir'), join(gitDir, 'gitdir')];
  const common = readLine(join(gitDir, 'commondir'));
  const commonDir = common === undefined ? undefined : resolve(gitDir, common);
  if (commonDir === undefined || !isDir(commonDir))
    return { metadata: [gitDir], base: [], protect: [...pointers, ...protect(gitDir)], planted: [] };
  return {
    metadata: [gitDir, ...COMMIT_WRITES.flatMap((part) => madeFolder(join(commonDir, part)))],
    base: [commonDir],
    protect: [...pointers, ...protect(gitDir), ...protect(commonDir)],
    planted: [],
  };
}

/** The user's home as the system knows it, when HOME names another folder: hidden too, not only HOME. */
function otherHome(home: string): string[] {
  try {
    const real = userInfo().homedir;
    return real !== '' && resolve(real) !== resolve(home) && real !== '/' ? [real] : [];
  } catch {
    return [];
  }
}

/** A run's sandbox for one process, and the environment it gets: what `startInGroup` takes. */
export function processSandbox(
  sandbox: RalphSandbox,
  needs: ProcessSandboxNeeds,
  baseEnv: NodeJS.ProcessEnv,
): { spec: Omit<SandboxSpec, 'cwd'>; env: NodeJS.ProcessEnv } {
  const home = baseEnv.HOME !== undefined && isAbsolute(baseEnv.HOME) ? baseEnv.HOME : homedir();
  const cwd = resolve(needs.cwd);
  const git = gitMounts(cwd);
  const workspace = [cwd, ...git.metadata];
  const writable = [...(needs.writesWorkspace ? workspace : []), ...(needs.writable ?? [])];
  const spec: Omit<SandboxSpec, 'cwd'> = {
    network: sandbox.network,
    home,
    writable,
    // An evaluator's workspace is bound read-only: under /tmp or the home it would otherwise not be there at all.
    readOnly: [
      // The programs a round runs from the home (Node under ~/.nvm, an agent CLI under ~/.local), read-only.
      ...toolFoldersUnder(home, baseEnv.PATH, [process.execPath, ...(needs.programs ?? [])]),
      ...tempFoldersOf(needs.programs ?? [], writable),
      ...git.base,
      ...(needs.writesWorkspace ? [] : workspace),
      ...git.protect,
      ...(needs.readOnly ?? []),
    ],
    homeBinds: (needs.home ?? []).map((path) => (isAbsolute(path) ? path : join(home, path))),
    hide: [...HOME_SECRETS.map((path) => join(home, path)), ...otherHome(home), ...sandbox.hide],
    bwrap: bwrapProgram(baseEnv),
    ...(needs.writesWorkspace && git.planted.length > 0 ? { removeIfMade: git.planted } : {}),
  };
  return { spec, env: sandboxEnv(baseEnv, [...(needs.env ?? []), ...sandbox.env]) };
}

/** The folders named by these variables of `env` that exist: where an agent CLI keeps its state when told to. */
export function foldersNamedBy(env: NodeJS.ProcessEnv, names: readonly string[]): string[] {
  return names.flatMap((name) => {
    const value = env[name];
    return value !== undefined && isAbsolute(value) && isDir(value) ? [value] : [];
  });
}

/** The file's folder: a round's files are bound as their folder. */
export const folderOf = dirname;
