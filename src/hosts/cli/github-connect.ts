// The GitHub client of a CLI command: the host's token (GITHUB_TOKEN, GH_TOKEN, else `gh auth token`) and Octokit.
// Its own file so that only a command that works with GitHub loads Octokit.
import { createGitHubApi } from '../../github/client.js';
import { githubToken } from '../../github/token.js';
import type { GitHubConnect } from './batch-github-tasks.js';

/** Connects to GitHub (or GitHub Enterprise at `apiUrl`) with the host's token, saying each rate-limit wait. */
export const connectGitHub: GitHubConnect = async (apiUrl, onWait) =>
  createGitHubApi({ token: await githubToken(), ...(apiUrl === undefined ? {} : { apiUrl }), onWait });
