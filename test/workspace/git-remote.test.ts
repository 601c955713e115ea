import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { GitError, git } from '../../src/workspace/git-command.js';
import { repoUrlProblem } from '../../src/workspace/git-remote.js';

describe("a batch repository's URL", () => {
  it.each([
    'file:///srv/git/app.git',
    'https://github.com/team/app.git',
    'ssh://git@host:2222/team/app.git',
    'git@github.com:team/app.git',
  ])('%s is one a worker may clone and push to', (url) => {
    expect(repoUrlProblem(url)).toBeNull();
  });

  it.each([
    'ext::sh -c touch% /tmp/x',
    'ssh://-oProxyCommand=touch% /tmp/x/app',
    'git@-oProxyCommand=x:app',
    'git@host:-upload-pack=x',
    '-upload-pack=touch /tmp/x',
    'http://host/app.git',
    'git://host/app.git',
    'file://relative/app.git',
    '/srv/git/app.git',
    'fd::3',
    'https://host/app.git with spaces',
  ])('%s is refused', (url) => {
    expect(repoUrlProblem(url)).toMatch(/must be a file:\/\/, https:\/\/, ssh:\/\/ or user@host:path URL/);
  });
});

describe("a batch repository's URL with a credential in it", () => {
  it.each([
    'https://user:PASSWORD@host/team/app.git',
    'https://ghp_TOKEN@github.com/team/app.git',
    'https://x-access-token:TOKEN@github.com/team/app.git',
    'ssh://git:PASSWORD@host/team/app.git',
    'git:PASSWORD@host:team/app.git',
  ])('%s is refused: workers bring their own credentials', (url) => {
    expect(repoUrlProblem(url)).toMatch(
      /^it carries a credential .* workers reach the remote with their own credentials/,
    );
  });
});

describe('a failed git command', () => {
  it("says what git was asked and said with every URL's password masked", async () => {
    const url = 'https://user:PASSWORD@127.0.0.1:1/team/app.git';
    const failed = await git(tmpdir(), ['ls-remote', '--', url, 'HEAD']).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(GitError);
    const error = failed as GitError;
    expect(error.message).toContain('git ls-remote -- https://user:***@127.0.0.1:1/team/app.git HEAD failed');
    expect(`${error.message}${error.args.join(' ')}${error.stderr}`).not.toContain('PASSWORD');
  });
});
