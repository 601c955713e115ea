// The options that take a batch's tasks from GitHub issues, one set for `ralph batch` and `ralph submit --batch`, so
// both commands offer and describe them alike.
import type { Command } from 'commander';
import type { GitHubTasksOptions } from './batch-github-tasks.js';

/** The keys of the GitHub options as commander gives them: any one given makes `ralph submit` a batch. */
export const GITHUB_TASK_KEYS: readonly (keyof GitHubTasksOptions)[] = [
  'fromGithub',
  'label',
  'assignee',
  'milestone',
  'limit',
  'fromAuthors',
  'githubApi',
];

/** The keys of `ralph submit --batch`'s pull-request options: any one makes `ralph submit` a batch (refused there without). */
export const PULL_KEYS = ['land', 'stack', 'githubRepo', 'reportUrl'] as const;

/** Those options' flags, as a refusal names them. */
export const PULL_FLAGS: Record<(typeof PULL_KEYS)[number], string> = {
  land: '--land',
  stack: '--stack',
  githubRepo: '--github-repo',
  reportUrl: '--report-url',
};

/** Adds `--from-github` and its filter options (`--label`, `--assignee`, …) to a command. */
export function addGitHubTaskOptions(command: Command): Command {
  return command
    .option(
      '--from-github <owner/repo>',
      "instead of a tasks file: the repository's open issues with --label, each a task gh-<number> (its author must have write access, or be in --from-authors)",
    )
    .option('--label <names>', 'with --from-github: the label(s) marking issues as tasks (a,b: all of them)')
    .option('--assignee <login>', 'with --from-github: only issues assigned to this login')
    .option('--milestone <name>', 'with --from-github: only issues of this milestone (its number or title)')
    .option('--limit <n>', 'with --from-github: at most this many issues, oldest first')
    .option(
      '--from-authors <logins>',
      'with --from-github: take only issues by these logins (a,b), instead of everyone with write access',
    )
    .option('--github-api <url>', 'with --from-github (or --land pr): the API root of GitHub Enterprise');
}
