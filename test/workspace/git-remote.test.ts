import { describe, expect, it } from 'vitest';
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
