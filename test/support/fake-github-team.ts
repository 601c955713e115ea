import { onTestFinished } from 'vitest';
import { type FakeGitHub, type FakeToken, startFakeGitHub } from './fake-github.js';

/**
 * The fake GitHub of the `--from-github` and `--land pr` tests, closed when its test finishes: repository acme/app
 * where ana (the owner of `token`) may write, bob is an admin and mallory may only read, so no task is taken from
 * mallory's issues; `others` are more tokens it accepts.
 */
export async function startFakeTeam(
  token: string,
  others: Record<string, FakeToken> = {},
): Promise<FakeGitHub> {
  const gh = await startFakeGitHub({
    owner: 'acme',
    repo: 'app',
    tokens: { [token]: { login: 'ana', permission: 'write' }, ...others },
    collaborators: { ana: 'write', bob: 'admin', mallory: 'read' },
  });
  onTestFinished(() => gh.close());
  return gh;
}

/** The issues numbers of `addTeamIssues`. */
export interface TeamIssues {
  /** ana's "Add a" (write a.txt a). */
  first: number;
  /** mallory's "Add evil": never a task, she may only read. */
  evil: number;
  /** bob's "Add b" (write b.txt b), which depends on the first. */
  second: number;
}

/** Labelled ralph: ana's, mallory's and bob's issue (depending on ana's); and ana's issue labelled other. */
export function addTeamIssues(gh: FakeGitHub): TeamIssues {
  const first = gh.addIssue({ title: 'Add a', author: 'ana', body: 'write a.txt a', labels: ['ralph'] });
  const evil = gh.addIssue({
    title: 'Add evil',
    author: 'mallory',
    body: 'write evil.txt x',
    labels: ['ralph'],
  });
  const second = gh.addIssue({
    title: 'Add b',
    author: 'bob',
    body: `write b.txt b\ndepends on #${first}`,
    labels: ['ralph'],
  });
  gh.addIssue({ title: 'Not a task', author: 'ana', body: 'write c.txt c', labels: ['other'] });
  return { first, evil, second };
}

/** The lines that say the team's issues taken (second after first) and mallory's skipped, as ralph says them. */
export const teamIssueLines = ({ first, evil, second }: TeamIssues): string[] => [
  `gh-${first}  #${first} "Add a"`,
  `gh-${second}  #${second} "Add b" (after gh-${first})`,
  `#${evil} "Add evil": its author mallory has no write access to the repository (their permission: read)`,
];

/** The arguments that take a batch's tasks from the team's issues labelled ralph, on the fake. */
export const fromTeam = (gh: FakeGitHub): string[] => [
  '--from-github',
  'acme/app',
  '--label',
  'ralph',
  '--github-api',
  gh.url,
];

/** The issue numbers of `addPullIssues`. */
export interface PullIssues {
  /** ana's "Add a" (write a.txt A): it passes. */
  a: number;
  /** ana's "Add fail" (write fail.txt x): a verify that refuses fail.txt never lets it pass. */
  bad: number;
  /** bob's "Add b" (write b.txt B), which depends on a. */
  b: number;
}

/** The issues of the `--land pr` tests, labelled ralph: one that passes, one that never does, one after the first. */
export function addPullIssues(gh: FakeGitHub): PullIssues {
  const a = gh.addIssue({ title: 'Add a', author: 'ana', body: 'write a.txt A', labels: ['ralph'] });
  const bad = gh.addIssue({ title: 'Add fail', author: 'ana', body: 'write fail.txt x', labels: ['ralph'] });
  const b = gh.addIssue({
    title: 'Add b',
    author: 'bob',
    body: `write b.txt B\ndepends on #${a}`,
    labels: ['ralph'],
  });
  return { a, bad, b };
}
