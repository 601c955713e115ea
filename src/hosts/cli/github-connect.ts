// The GitHub client of a CLI command: the host's token (GITHUB_TOKEN, GH_TOKEN, else `gh auth token`) and Octokit.
// Its own file so that only a command that works with GitHub loads Octokit.

import { gitPusher } from '../../batch/pulls.js';
import { RalphError } from '../../contract/errors.js';
import { githubTokenLacks } from '../../contract/github-messages.js';
import { githubUnreadable, githubWaitLine } from '../../contract/github-task-messages.js';
import { createGitHubApi } from '../../github/client.js';
import { GitHubApiError, type RepoRef } from '../../github/github-api.js';
import { repoOfRemoteUrl } from '../../github/repo-ref.js';
import { githubToken } from '../../github/token.js';
import { gitLine } from '../../workspace/git-command.js';
import { apiUrlOf, forgetGitHubTokens, type GitHubConnect, repoRefOf } from './batch-github-tasks.js';
import type { ConnectGitHub } from './batch-options.js';

/** The remote a `--land pr` batch pushes its tasks' branches to. */
const PUSH_REMOTE = 'origin';

// The token is read once per process: a batch that takes its tasks from issues and opens pull requests has taken
// the token variables out of its environment (so no child inherits them) before it opens the first pull request.
let heldToken: Promise<string> | undefined;
const tokenOnce = (): Promise<string> => {
  heldToken ??= githubToken();
  return heldToken;
};

/** Connects to GitHub (or GitHub Enterprise at `apiUrl`) with the host's token, saying each rate-limit wait. */
export const connectGitHub: GitHubConnect = async (apiUrl, onWait) =>
  createGitHubApi({ token: await tokenOnce(), ...(apiUrl === undefined ? {} : { apiUrl }), onWait });

const refuse = (message: string): RalphError =>
  new RalphError({ code: 'refused', message: `ralph batch --land pr: ${message}` });

/** The repository the pull requests go to: `--github-repo`, else `--from-github`'s, else the one `origin` is. */
async function pullRepoOf(
  cwd: string,
  options: { githubRepo?: string; fromGithub?: string },
): Promise<RepoRef> {
  const named = options.githubRepo ?? options.fromGithub;
  if (named !== undefined) return repoRefOf(named);
  const origin = await gitLine(cwd, ['remote', 'get-url', PUSH_REMOTE]).catch(() => null);
  const fromOrigin = origin === null ? null : repoOfRemoteUrl(origin);
  if (fromOrigin === null)
    throw refuse(
      `the repository the pull requests go to is not known: give --github-repo OWNER/REPO (the branches are pushed to the remote ${PUSH_REMOTE})`,
    );
  return fromOrigin;
}

/**
 * The GitHub of `ralph batch --land pr`: the client with the host's token, the repository, and `git push origin`.
 * The token is asked what it may do before anything starts: one that cannot push, open pull requests or comment is
 * refused, naming what it lacks.
 */
export const connectPulls: ConnectGitHub = async (cwd, options, say) => {
  const repo = await pullRepoOf(cwd, options);
  const name = `${repo.owner}/${repo.repo}`;
  const api = await connectGitHub(apiUrlOf(options.githubApi, 'ralph batch'), (wait) =>
    say(githubWaitLine(wait.seconds, wait.why)),
  );
  forgetGitHubTokens();
  let access: { login: string; missing: string[] };
  try {
    access = await api.tokenAccess(repo);
  } catch (error) {
    if (error instanceof GitHubApiError) throw refuse(githubUnreadable(name, error.message));
    throw error;
  }
  if (access.missing.length > 0)
    throw new RalphError({ code: 'refused', message: githubTokenLacks(access.login, name, access.missing) });
  return { api, repo, login: access.login, push: gitPusher(cwd, PUSH_REMOTE) };
};
