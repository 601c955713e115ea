import { describe, expect, test } from 'vitest';
import { maskUrlCredentials, urlCredentialsProblem } from '../../src/contract/url-credentials.js';

describe("a URL's credentials in a text", () => {
  test.each([
    ['https://user:PASSWORD@host/r.git', 'https://user:***@host/r.git'],
    ['https://user:P@SS@host/r.git', 'https://user:***@host/r.git'],
    ['https://TOKEN@github.com/o/r.git', 'https://***@github.com/o/r.git'],
    ['ssh://git:PASSWORD@host/r.git', 'ssh://git:***@host/r.git'],
    ['git:PASSWORD@host:r.git', 'git:***@host:r.git'],
    [
      "git ls-remote -- https://u:PW@h/a HEAD: fatal: unable to access 'https://u:PW@h/a/'",
      "git ls-remote -- https://u:***@h/a HEAD: fatal: unable to access 'https://u:***@h/a/'",
    ],
    ['"https://u:PW@h/a"', '"https://u:***@h/a"'],
  ])('%s is shown as %s', (text, masked) => {
    expect(maskUrlCredentials(text)).toBe(masked);
    expect(urlCredentialsProblem(text)).toMatch(/^it carries a credential/);
  });

  test.each([
    'ssh://git@host/r.git',
    'git@github.com:o/r.git',
    'https://host/path@x.git',
    'file:///srv/a@b/r.git',
    'test@localhost',
    'HEAD@{1}',
  ])('%s has no credential and is shown as it is', (text) => {
    expect(maskUrlCredentials(text)).toBe(text);
    expect(urlCredentialsProblem(text)).toBeNull();
  });
});
