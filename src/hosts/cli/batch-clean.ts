import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  type BatchPlan,
  batchPlan,
  type CleanContext,
  type Kept,
  type Removal,
} from '../../batch/clean-plan.js';
import { isBatchId } from '../../contract/batch-id.js';
import { errorText } from '../../contract/error-text.js';
import { RalphError } from '../../contract/errors.js';
import { gitLine } from '../../workspace/git-command.js';
import { deleteRef, LeftoverPathError, leftoversRoot, removeInside } from '../../workspace/git-leftovers.js';
import { worktreeList } from '../../workspace/git-worktree.js';
import { EXIT } from './exit-codes.js';

/** The options of `ralph batch --clean [id]`. */
export interface CleanOptions {
  cwd?: string;
  /** `--clean` (every batch: true) or `--clean <id>` (that batch). */
  clean?: string | boolean;
  /** Remove work that did not land, and batches that did not settle, too (never a running batch). */
  force?: boolean;
  /** Say what would be removed, and remove nothing. */
  dryRun?: boolean;
}

const refuse = (message: string): RalphError => new RalphError({ code: 'refused', message });

/** The things counted in the last line, in its order. */
const KINDS = [
  ['branch', 'branch', 'branches'],
  ['tag', 'tag', 'tags'],
  ['worktree', 'worktree', 'worktrees'],
  ['folder', 'batch folder', 'batch folders'],
] as const;

/** `3 branches, 1 tag, 0 worktrees, 1 batch folder` for a list of things of those kinds. */
function counts(kinds: readonly Kept['kind'][]): string {
  return KINDS.map(([kind, one, many]) => {
    const n = kinds.filter((k) => k === kind).length;
    return `${n} ${n === 1 ? one : many}`;
  }).join(', ');
}

/** One thing as the lines name it: `branch ralph/<id>/a`, `batch folder /repo/.git/ralph/batches/<id>`. */
const thing = (kind: Kept['kind'], name: string): string =>
  `${kind === 'folder' ? 'batch folder' : kind} ${name}`;

/** The line saying one removal: `branch ralph/<id>/a`, `worktree /repo/.git/ralph/batches/<id>/a`. */
const removalText = (removal: Removal): string =>
  thing(removal.kind, 'path' in removal ? removal.path : removal.name);

/** Makes one removal: a path inside the batches folder, or a ref only if it has not moved. */
async function makeRemoval(context: CleanContext, removal: Removal): Promise<void> {
  if ('path' in removal) await removeInside(context.repo, context.root, removal.path);
  else
    await deleteRef(
      context.repo,
      `refs/${removal.kind === 'tag' ? 'tags' : 'heads'}/${removal.name}`,
      removal.value,
    );
}

/**
 * Makes a batch's removals in order, once its recording is checked to be as it was read (a batch resumed meanwhile
 * is left alone). The first that fails stops the batch's: it and the rest are kept, with why. Resolves with what
 * was removed and what was kept.
 */
async function carryOut(
  context: CleanContext,
  plan: BatchPlan,
): Promise<{ removed: Removal[]; kept: Kept[] }> {
  // A batch left alone whole is not read again: its folder may be a link, which is never followed.
  if (plan.remove.length === 0) return { removed: [], kept: plan.keep };
  const now = await readFile(join(plan.folder, 'batch.jsonl'), 'utf8').catch(() => null);
  const asKept = (list: Removal[], why: string): Kept[] =>
    list.map((removal) => ({
      kind: removal.kind,
      what: 'path' in removal ? removal.path : removal.name,
      why,
    }));
  if (now !== plan.recording)
    return {
      removed: [],
      kept: [...plan.keep, ...asKept(plan.remove, 'its recording changed meanwhile; left alone')],
    };
  const removed: Removal[] = [];
  for (const [at, removal] of plan.remove.entries()) {
    try {
      await makeRemoval(context, removal);
      removed.push(removal);
    } catch (error) {
      const why = `could not remove ${removalText(removal)}: ${errorText(error)}`;
      return { removed, kept: [...plan.keep, ...asKept(plan.remove.slice(at), why)] };
    }
  }
  return { removed, kept: plan.keep };
}

/** The entries of the batches folder to clean: the one named (refused when it is not there), or all of them. */
async function entriesToClean(root: string | null, clean: string | boolean, repo: string): Promise<string[]> {
  if (typeof clean === 'string') {
    if (!isBatchId(clean))
      throw refuse(`--clean ${JSON.stringify(clean)}: not a batch id (they look like 20261201-1522-a1b2c3)`);
    if (root === null || !(await readdir(root)).includes(clean))
      throw refuse(`--clean ${clean}: there is no batch ${clean} in ${repo}`);
    return [clean];
  }
  return root === null ? [] : (await readdir(root)).sort();
}

/**
 * `ralph batch --clean [id]`: removes what settled batches of the repository left (their task branches whose work
 * is on the target, worktrees, scratch trees, session branch, start tag and folder), and says what it removed and
 * what it kept and why. Work that did not land stays unless --force; a running batch always stays. Exit 0.
 */
export async function cleanCommand(tasksFile: string | undefined, options: CleanOptions): Promise<number> {
  if (tasksFile !== undefined) throw refuse('ralph batch --clean runs no batch: give it no tasks file');
  const clean = options.clean ?? true;
  const cwd = resolve(options.cwd ?? '.');
  const repo = await gitLine(cwd, ['rev-parse', '--show-toplevel']).catch(() => {
    throw refuse(`ralph batch --clean: ${cwd} is not in a git repository`);
  });
  const root = await leftoversRoot(repo).catch((error: unknown) => {
    throw error instanceof LeftoverPathError ? refuse(`ralph batch --clean: ${error.message}`) : error;
  });
  const entries = await entriesToClean(root, clean, repo);
  const dryRun = options.dryRun === true;
  const removed: Removal[] = [];
  const kept: Kept[] = [];
  for (const name of entries) {
    // Each batch is looked at against the worktrees as the batches before it left them.
    const context: CleanContext = {
      repo,
      root: root as string,
      force: options.force === true,
      worktrees: await worktreeList(repo),
    };
    const plan = await batchPlan(context, name);
    const done = dryRun ? { removed: plan.remove, kept: plan.keep } : await carryOut(context, plan);
    for (const removal of done.removed)
      process.stdout.write(`${dryRun ? 'would remove' : 'removed'} ${removalText(removal)}\n`);
    for (const one of done.kept) process.stdout.write(`kept ${thing(one.kind, one.what)}: ${one.why}\n`);
    removed.push(...done.removed);
    kept.push(...done.kept);
  }
  process.stdout.write(
    `ralph batch --clean${dryRun ? ' --dry-run: would remove' : ': removed'} ${counts(removed.map((r) => r.kind))}; kept ${counts(kept.map((k) => k.kind))}\n`,
  );
  return EXIT.complete;
}

/**
 * `ralph batch` with --clean: the clean's exit code; without it, null (the batch runs), or a refusal when --force
 * or --dry-run is given, which only --clean takes.
 */
export async function cleanIfAsked(
  tasksFile: string | undefined,
  options: CleanOptions & { rollback?: string; resume?: string; into?: string; repo?: string },
): Promise<number | null> {
  if (options.clean !== undefined) {
    const other = (['rollback', 'resume', 'into', 'repo'] as const).find((key) => options[key] !== undefined);
    if (other !== undefined) throw refuse(`ralph batch --clean runs no batch: it takes no --${other}`);
    return cleanCommand(tasksFile, options);
  }
  if (options.force === true || options.dryRun === true)
    throw refuse(`ralph batch ${options.force === true ? '--force' : '--dry-run'} goes with --clean`);
  return null;
}
