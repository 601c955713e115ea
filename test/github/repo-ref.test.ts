import { describe, expect, it } from 'vitest';
import { isRepoRef, parseRepoRef, repoOfRemoteUrl } from '../../src/github/repo-ref.js';

describe('repoOfRemoteUrl', () => {
  it('reads OWNER/REPO from an https, ssh or scp-like remote, with or without .git', () => {
    const acme = { owner: 'acme', repo: 'app' };
    expect(repoOfRemoteUrl('https://github.com/acme/app.git')).toEqual(acme);
    expect(repoOfRemoteUrl('https://github.com/acme/app')).toEqual(acme);
    expect(repoOfRemoteUrl('ssh://git@github.com/acme/app.git')).toEqual(acme);
    expect(repoOfRemoteUrl('git@github.com:acme/app.git')).toEqual(acme);
    expect(repoOfRemoteUrl('git@ghe.example.com:acme/app.js.git')).toEqual({ owner: 'acme', repo: 'app.js' });
  });

  it('gives none for a path that is not OWNER/REPO by GitHub’s rule', () => {
    for (const url of [
      'file:///srv/git/app.git',
      '/srv/git/app.git',
      'https://gitlab.test/group/sub/app.git',
      'https://github.com/acme',
      'git@github.com:-acme/app.git',
      'https://github.com/acme/..',
    ])
      expect(repoOfRemoteUrl(url), url).toBeNull();
  });
});

describe('parseRepoRef and isRepoRef', () => {
  it('hold one rule for OWNER/REPO, text or object', () => {
    expect(parseRepoRef(' acme/app ')).toEqual({ owner: 'acme', repo: 'app' });
    expect(parseRepoRef('acme/.')).toBeNull();
    expect(isRepoRef({ owner: 'acme', repo: 'app' })).toBe(true);
    expect(isRepoRef({ owner: 'acme', repo: 'app', token: 'x' })).toBe(false);
    expect(isRepoRef({ owner: ' acme', repo: 'app' })).toBe(false);
  });
});
