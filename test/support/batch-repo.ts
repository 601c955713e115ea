import { gitIn } from './git-repo.js';

/** How many commits on `target` carry task `taskId`'s `Ralph-Task:` trailer: the commits the batch made for it. */
export const taskCommitsOn = (repo: string, target: string, taskId: string): number =>
  gitIn(repo, 'log', '--format=%(trailers:key=Ralph-Task,valueonly)', target)
    .split('\n')
    .filter((line) => line.endsWith(`/${taskId}`)).length;

/** The repository's worktrees other than the main one. */
export const extraWorktrees = (repo: string): string[] =>
  gitIn(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((l) => l.startsWith('worktree '))
    .slice(1);
