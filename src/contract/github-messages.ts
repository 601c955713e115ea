/** The texts of ralph's refusals about GitHub: each says what is missing and how to give it. */

/** Refusal: no token in the environment and none from the GitHub CLI. */
export function githubTokenMissing(): string {
  return 'Ralph needs a GitHub token to work with issues and pull requests, and found none. Set GITHUB_TOKEN (or GH_TOKEN) to a token for the repository, or log in with the GitHub CLI (gh auth login) so that `gh auth token` gives one.';
}

/** Refusal: the token lacks what ralph needs on the repository. */
export function githubTokenLacks(login: string, repo: string, missing: string[]): string {
  return `Ralph cannot use the GitHub token of ${login} on ${repo}: it is missing ${missing.join(', ')}. Give the token these permissions (a fine-grained token: the repository's permissions; a classic token: its scopes), or use another token.`;
}
