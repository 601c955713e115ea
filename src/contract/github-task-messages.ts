/**
 * The texts of `ralph batch --from-github`: why an issue was not taken as a task, and the lines that list the taken
 * and skipped issues before anything starts. Issue titles are anyone's text: they are shown JSON-quoted, so a
 * terminal escape or a line break in one shows as such rather than acting on the terminal.
 */

/** Why: the author is not among `--from-authors`. */
export const authorNotListed = (author: string): string => `its author ${author} is not in --from-authors`;

/** Why: the author has no write access to the repository (their permission as GitHub says it). */
export const authorCannotWrite = (author: string, permission: string): string =>
  `its author ${author} has no write access to the repository (their permission: ${permission})`;

/** Why: the title and body together are longer than an objective may be. */
export const objectiveTooLongWhy = (length: number, max: number): string =>
  `its title and body are ${length} characters long; an objective is at most ${max}`;

/** Why: the issue's text holds a NUL character, which no objective may. */
export const objectiveHasNul = (): string => 'its title or body holds a NUL character';

/** Why: the title is blank (nothing to take as an objective). */
export const objectiveBlank = (): string => 'its title is blank';

/** Why: it depends on issues that are not tasks of this batch (skipped, closed, or not matching the filter). */
export const dependsOnUntaken = (numbers: readonly number[]): string =>
  `it depends on ${numbers.map((n) => `#${n}`).join(', ')}, which ${numbers.length === 1 ? 'is' : 'are'} not a task of this batch`;

/** The line before the taken issues: how many, from where. */
export const takenHeading = (count: number, repo: string): string =>
  `${count} issue(s) of ${repo} taken as tasks:`;

/** One taken issue: its task id, number, title (quoted) and the tasks it comes after. */
export const takenLine = (id: string, number: number, title: string, after: readonly string[]): string =>
  `  ${id}  #${number} ${JSON.stringify(title)}${after.length === 0 ? '' : ` (after ${after.join(', ')})`}`;

/** The line before the skipped issues. */
export const skippedHeading = (count: number): string => `${count} issue(s) skipped:`;

/** One skipped issue: its number, title (quoted) and why. */
export const skippedLine = (number: number, title: string, why: string): string =>
  `  #${number} ${JSON.stringify(title)}: ${why}`;

/** Refusal: no issue matched, or none was taken. */
export const noIssueTaken = (repo: string, matched: number): string =>
  matched === 0
    ? `no open issue of ${repo} matches the filter; nothing was started`
    : `none of the ${matched} matching issue(s) of ${repo} could be taken as a task; nothing was started`;

/** Refusal: `--from-github` names no OWNER/REPO. */
export const repoRefProblem = (given: string): string =>
  `--from-github must name a repository as OWNER/REPO (got ${JSON.stringify(given)})`;

/** Refusal: both a tasks file and `--from-github` (`command`: `ralph batch` or `ralph submit --batch`). */
export const tasksFileAndGitHub = (command = 'ralph batch'): string =>
  `${command} takes its tasks from a tasks file or from --from-github, not both`;

/**
 * Refusal: `--trust-tasks` with `--from-github`. It vouches for the commands a tasks file names; an issue names
 * none, and its text is never vouched for.
 */
export const trustTasksWithGitHub = (command: string): string =>
  `${command}: --trust-tasks is for a tasks file: a task from --from-github never names a command, and an issue's text is never trusted`;

/** Refusal: a GitHub filter option without `--from-github`. */
export const filterWithoutGitHub = (option: string): string => `${option} is for --from-github`;

/** Refusal: `--limit` is not a whole number from 1. */
export const limitProblem = (given: string): string =>
  `--limit must be a whole number from 1 (got ${JSON.stringify(given)})`;

/** Refusal: `--from-authors` lists no login. */
export const noAuthorListed = (): string => '--from-authors must list at least one GitHub login (a,b,…)';

/** The progress line while ralph waits for GitHub's rate limit. */
export const githubWaitLine = (seconds: number, why: string): string =>
  `GitHub: waiting ${seconds}s (${why})`;

/** Refusal: GitHub did not give the issues or an author's permission (its answer as the client says it). */
export const githubUnreadable = (repo: string, answer: string): string =>
  `cannot read the issues of ${repo} and who may write them: ${answer}; nothing was started`;
