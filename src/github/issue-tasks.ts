// Issues as a batch's tasks. An issue's text is anyone's: it becomes a task's objective and nothing else. A task made
// here has only `id`, `objective` and `after` — never an agent, a verify command or a round cap (the fields a tasks
// file may set), so no issue can choose what runs, where, or how long. Pure: who may write tasks is asked first
// (task-authors.ts) and given in.
import type { BatchTask } from '../contract/batch-tasks.js';
import { MAX_OBJECTIVE_CHARS } from '../contract/call.js';
import {
  authorCannotWrite,
  authorNotListed,
  dependsOnUntaken,
  objectiveBlank,
  objectiveHasNul,
  objectiveTooLongWhy,
} from '../contract/github-task-messages.js';
import type { GitHubIssue } from './github-api.js';

/** Who may write tasks: the logins allowed (lower case), and how the others are refused. */
export interface TaskAuthors {
  /** Logins, lower case (GitHub's logins are case-insensitive). */
  allowed: ReadonlySet<string>;
  /** `listed`: from `--from-authors`; `write`: people with write access, with each other author's permission. */
  rule: { kind: 'listed' } | { kind: 'write'; permissionOf: ReadonlyMap<string, string> };
}

/** An issue not taken, and why. */
export interface SkippedIssue {
  number: number;
  title: string;
  why: string;
}

/** An issue taken: its task, and the issue it came from. */
export interface IssueTask {
  task: BatchTask;
  issue: GitHubIssue;
}

/** The task id of issue `number`: `gh-<number>`. */
export const issueTaskId = (number: number): string => `gh-${number}`;

/** "depends on #3, #4" / "blocked by #7" (case-insensitive): the phrase and the issue references after it. */
const DEPENDENCY = /\b(?:depends\s+on|blocked\s+by)\s*:?\s*((?:#\d+(?:\s*(?:,|and|&)\s*|\s+))*#\d+)/gi;

/** The issue numbers an issue's body says it depends on or is blocked by, in order, each once. */
export function dependenciesOf(body: string): number[] {
  const numbers: number[] = [];
  for (const line of body.split(/\r?\n/))
    for (const match of line.matchAll(DEPENDENCY))
      for (const ref of (match[1] as string).matchAll(/#(\d+)/g)) {
        const number = Number(ref[1]);
        if (Number.isSafeInteger(number) && !numbers.includes(number)) numbers.push(number);
      }
  return numbers;
}

/** The objective of an issue: its title, a blank line, its body (the title alone when the body is blank). */
export function objectiveOf(issue: Pick<GitHubIssue, 'title' | 'body'>): string {
  const title = issue.title.trim();
  const body = issue.body.trim();
  return body === '' ? title : `${title}\n\n${body}`;
}

/** Why the author may not write tasks, or null when they may. */
function authorProblem(author: string, authors: TaskAuthors): string | null {
  if (authors.allowed.has(author.toLowerCase())) return null;
  if (authors.rule.kind === 'listed') return authorNotListed(author);
  return authorCannotWrite(author, authors.rule.permissionOf.get(author.toLowerCase()) ?? 'none');
}

/** Why the issue's text cannot be an objective, or null when it can. */
function textProblem(issue: GitHubIssue, maxChars: number): string | null {
  if (issue.title.trim() === '') return objectiveBlank();
  const objective = objectiveOf(issue);
  if (objective.includes('\0')) return objectiveHasNul();
  // Refused rather than cut: a cut objective would ask the agent for part of what the issue asks, silently.
  if (objective.length > maxChars) return objectiveTooLongWhy(objective.length, maxChars);
  return null;
}

/**
 * The tasks of the issues: each issue whose author may write tasks and whose text fits an objective becomes task
 * `gh-<number>` (objective: title, blank line, body; `after`: the tasks of the issues it depends on or is blocked
 * by). An issue that depends on one not taken here (skipped, closed, or outside the filter) is skipped too, with
 * why: it would otherwise run without what it needs. A reference to itself is ignored. Issues keep their order.
 */
export function issueTasks(
  issues: readonly GitHubIssue[],
  authors: TaskAuthors,
  maxObjectiveChars: number = MAX_OBJECTIVE_CHARS,
): { tasks: IssueTask[]; skipped: SkippedIssue[] } {
  const why = new Map<number, string>();
  for (const issue of issues) {
    const problem = authorProblem(issue.author, authors) ?? textProblem(issue, maxObjectiveChars);
    if (problem !== null) why.set(issue.number, problem);
  }
  const listed = new Set(issues.map((issue) => issue.number));
  const dependencies = new Map(
    issues.map((issue) => [issue.number, dependenciesOf(issue.body).filter((n) => n !== issue.number)]),
  );
  // Skipping one issue may leave another's dependency untaken: repeat until nothing changes.
  for (let changed = true; changed; ) {
    changed = false;
    for (const issue of issues) {
      if (why.has(issue.number)) continue;
      const untaken = (dependencies.get(issue.number) ?? []).filter((n) => !listed.has(n) || why.has(n));
      if (untaken.length === 0) continue;
      why.set(issue.number, dependsOnUntaken(untaken));
      changed = true;
    }
  }
  const tasks: IssueTask[] = [];
  const skipped: SkippedIssue[] = [];
  for (const issue of issues) {
    const problem = why.get(issue.number);
    if (problem !== undefined) {
      skipped.push({ number: issue.number, title: issue.title, why: problem });
      continue;
    }
    const after = (dependencies.get(issue.number) ?? []).map(issueTaskId);
    tasks.push({ task: { id: issueTaskId(issue.number), objective: objectiveOf(issue), after }, issue });
  }
  return { tasks, skipped };
}
