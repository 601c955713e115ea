import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { git, gitLine, gitLines } from './git-command.js';
import { commitIdentityArgs } from './git-identity.js';

/** A line git writes around the two sides of a conflict. */
const CONFLICT_MARKER = /^(<{7}|={7}|>{7})( |$)/m;

/**
 * In `scratch`, a worktree whose detached head is the target's head, merges `branch` without committing and
 * resolves with the files left conflicting (none when it merged cleanly): what a resolver is asked to fix.
 */
export function startMerge(scratch: string, branch: string): Promise<string[]> {
  return startMergeOf(scratch, `refs/heads/${branch}`);
}

/** startMerge of any commit (`rev`), such as a fleet task's branch as the worker's clone fetched it. */
export async function startMergeOf(scratch: string, rev: string): Promise<string[]> {
  await git(scratch, [...(await commitIdentityArgs(scratch)), 'merge', '--no-ff', '--no-commit', rev]).catch(
    () => undefined,
  );
  return gitLines(scratch, ['diff', '--name-only', '--diff-filter=U']);
}

/** The files among `files` that still hold a conflict marker. */
export async function filesWithMarkers(scratch: string, files: readonly string[]): Promise<string[]> {
  const marked: string[] = [];
  for (const file of files) {
    const text = await readFile(join(scratch, file), 'utf8').catch(() => '');
    if (CONFLICT_MARKER.test(text)) marked.push(file);
  }
  return marked;
}

/** Stages everything in the scratch tree and commits the merge with `message`; resolves with the new head. */
export async function finishMerge(scratch: string, message: string): Promise<string> {
  await git(scratch, ['add', '--all']);
  await git(scratch, [
    ...(await commitIdentityArgs(scratch)),
    'commit',
    '--no-verify',
    '--quiet',
    '-m',
    message,
  ]);
  return gitLine(scratch, ['rev-parse', 'HEAD']);
}
