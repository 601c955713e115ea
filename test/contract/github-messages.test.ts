import { describe, expect, it } from 'vitest';
import * as fleet from '../../src/contract/fleet-pull-messages.js';
import { githubTokenLacks, githubTokenMissing } from '../../src/contract/github-messages.js';
import * as tasks from '../../src/contract/github-task-messages.js';

// The texts ralph says about GitHub, word for word: what is missing and how to give it, why an issue was not taken,
// and what a fleet batch's pull requests are told. Anyone's text in them (an issue's title) is quoted.

describe('the token', () => {
  it('says where a token is looked for when there is none', () => {
    expect(githubTokenMissing()).toBe(
      'Ralph needs a GitHub token to work with issues and pull requests, and found none. Set GITHUB_TOKEN (or GH_TOKEN) to a token for the repository, or log in with the GitHub CLI (gh auth login) so that `gh auth token` gives one.',
    );
  });
  it('names whose token lacks what, on which repository', () => {
    expect(githubTokenLacks('rita', 'acme/app', ['a', 'b'])).toBe(
      "Ralph cannot use the GitHub token of rita on acme/app: it is missing a, b. Give the token these permissions (a fine-grained token: the repository's permissions; a classic token: its scopes), or use another token.",
    );
  });
});

describe('issues as tasks', () => {
  it('says why an issue was not taken', () => {
    expect(tasks.authorNotListed('bob')).toBe('its author bob is not in --from-authors');
    expect(tasks.authorCannotWrite('mallory', 'read')).toBe(
      'its author mallory has no write access to the repository (their permission: read)',
    );
    expect(tasks.objectiveTooLongWhy(20, 10)).toBe(
      'its title and body are 20 characters long; an objective is at most 10',
    );
    expect(tasks.objectiveHasNul()).toBe('its title or body holds a NUL character');
    expect(tasks.objectiveBlank()).toBe('its title is blank');
    expect(tasks.dependsOnUntaken([4])).toBe('it depends on #4, which is not a task of this batch');
    expect(tasks.dependsOnUntaken([4, 5])).toBe('it depends on #4, #5, which are not a task of this batch');
  });

  it('lists the taken and skipped issues, titles quoted', () => {
    expect(tasks.takenHeading(2, 'acme/app')).toBe('2 issue(s) of acme/app taken as tasks:');
    expect(tasks.takenLine('gh-3', 3, 'Add b', ['gh-1'])).toBe('  gh-3  #3 "Add b" (after gh-1)');
    expect(tasks.takenLine('gh-4', 4, 'Add c', ['gh-1', 'gh-3'])).toBe(
      '  gh-4  #4 "Add c" (after gh-1, gh-3)',
    );
    expect(tasks.takenLine('gh-1', 1, 'a\u001b[2Jb', [])).toBe('  gh-1  #1 "a\\u001b[2Jb"');
    expect(tasks.skippedHeading(1)).toBe('1 issue(s) skipped:');
    expect(tasks.skippedLine(2, 'Evil\nline', 'why')).toBe('  #2 "Evil\\nline": why');
  });

  it('refuses, saying what to give', () => {
    expect(tasks.noIssueTaken('acme/app', 0)).toBe(
      'no open issue of acme/app matches the filter; nothing was started',
    );
    expect(tasks.noIssueTaken('acme/app', 3)).toBe(
      'none of the 3 matching issue(s) of acme/app could be taken as a task; nothing was started',
    );
    expect(tasks.repoRefProblem('acme')).toBe(
      '--from-github must name a repository as OWNER/REPO (got "acme")',
    );
    expect(tasks.tasksFileAndGitHub()).toBe(
      'ralph batch takes its tasks from a tasks file or from --from-github, not both',
    );
    expect(tasks.tasksFileAndGitHub('ralph submit --batch')).toBe(
      'ralph submit --batch takes its tasks from a tasks file or from --from-github, not both',
    );
    expect(tasks.trustTasksWithGitHub('ralph batch')).toBe(
      "ralph batch: --trust-tasks is for a tasks file: a task from --from-github never names a command, and an issue's text is never trusted",
    );
    expect(tasks.filterWithoutGitHub('--label')).toBe('--label is for --from-github');
    expect(tasks.limitProblem('0')).toBe('--limit must be a whole number from 1 (got "0")');
    expect(tasks.noAuthorListed()).toBe('--from-authors must list at least one GitHub login (a,b,…)');
    expect(tasks.githubWaitLine(3, "GitHub's secondary rate limit")).toBe(
      "GitHub: waiting 3s (GitHub's secondary rate limit)",
    );
    expect(tasks.githubUnreadable('acme/app', '401 Bad credentials')).toBe(
      'cannot read the issues of acme/app and who may write them: 401 Bad credentials; nothing was started',
    );
  });
});

describe("a fleet batch's pull requests", () => {
  it("says a worker's refusal, a submit's, and what became of a task's pull request", () => {
    expect(fleet.noGitHubWorker('w1')).toBe(
      'ralph fleet: worker w1 does not open pull requests (start it with --allow-github: it opens them with its own GitHub token, GITHUB_TOKEN, GH_TOKEN or gh auth token). Nothing was started',
    );
    expect(fleet.noPullRepo()).toBe(
      'ralph submit --batch --land pr: the repository the pull requests go to is not known: give --github-repo OWNER/REPO (or --from-github OWNER/REPO, or a --repo URL on GitHub); nothing was submitted',
    );
    expect(fleet.pullOptionWithoutLand('--stack')).toBe(
      'ralph submit --batch: --stack needs --land pr; nothing was submitted',
    );
    expect(fleet.fleetLandNotPr('x')).toBe(
      'ralph submit --batch --land "x": a fleet batch lands as pull requests with --land pr (without --land: on the target); nothing was submitted',
    );
    expect(fleet.pullNotOpened('422')).toBe(
      "its verify passed on the target's tree, but no pull request was opened: 422",
    );
    expect(fleet.draftNotOpened('422')).toBe('no draft pull request was opened: 422');
    expect(fleet.pullPushRefused('ralph/gh-1')).toBe(
      'git would not push ralph/gh-1: it has commits ralph did not push there (or the remote refused)',
    );
    expect(fleet.readyPullLine('gh-1', 'https://g/p/1')).toBe('gh-1: pull request https://g/p/1');
    expect(fleet.draftPullLine('https://g/p/2')).toBe(
      '  draft pull request https://g/p/2 (labelled ralph: needs-review)',
    );
  });
});
