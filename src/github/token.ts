// Where ralph finds its GitHub token: the environment first (GITHUB_TOKEN, then GH_TOKEN), then the GitHub CLI's
// login. The token is the host's own: callers keep it out of agents' environments, recordings and traces.
import { execFile } from 'node:child_process';
import { RalphError } from '../contract/errors.js';
import { githubTokenMissing } from '../contract/github-messages.js';

/** How long `gh auth token` may take before ralph stops asking it. */
const ghTimeoutMs = 10_000;

/** The GitHub token from GITHUB_TOKEN, GH_TOKEN or `gh auth token`; refuses (code 'refused') when none is found. */
export async function githubToken(
  env: NodeJS.ProcessEnv = process.env,
  gh: () => Promise<string | null> = ghAuthToken,
): Promise<string> {
  for (const name of ['GITHUB_TOKEN', 'GH_TOKEN'] as const) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  const fromCli = await gh();
  if (fromCli) return fromCli;
  throw new RalphError({ code: 'refused', message: githubTokenMissing() });
}

/** The GitHub CLI's token, or null when `gh` is not installed, not logged in, or does not answer in time. */
export function ghAuthToken(program = 'gh', timeoutMs = ghTimeoutMs): Promise<string | null> {
  return new Promise((settle) => {
    execFile(
      program,
      ['auth', 'token'],
      { timeout: timeoutMs, shell: false, windowsHide: true, encoding: 'utf8' },
      (error, stdout) => {
        const token = stdout?.trim() ?? '';
        settle(error === null && token !== '' ? token : null);
      },
    );
  });
}
