import { describe, expect, it } from 'vitest';
import { SANDBOX_BASE_ENV } from '../../src/contract/sandbox.js';
import { sandboxEnv } from '../../src/process/sandbox-env.js';

/** A user's environment: the base list's variables, secrets of ralph's own, and an agent CLI's settings. */
const env: NodeJS.ProcessEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/me',
  USER: 'me',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  LC_TIME: 'en_GB.UTF-8',
  TERM: 'xterm-256color',
  HTTPS_PROXY: 'http://proxy:3128',
  no_proxy: 'localhost',
  NODE_EXTRA_CA_CERTS: '/etc/ssl/corp.pem',
  TMPDIR: '/home/me/tmp',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
  GITHUB_TOKEN: 'gh-secret',
  RALPH_DATABASE_URL: 'postgres://secret',
  ANTHROPIC_API_KEY: 'sk-ant',
  ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
  ANTHROPICX: 'not the prefix',
  CLAUDE_CONFIG_DIR: '/home/me/.claude',
  MY_TOOL_HOME: '/opt/tool',
  LANGUAGE_MODEL: 'not LANGUAGE',
};

describe('sandboxEnv', () => {
  it('keeps the base list and nothing else: no secret of ralph’s own environment, no TMPDIR', () => {
    expect(sandboxEnv(env, [])).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/me',
      USER: 'me',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      LC_TIME: 'en_GB.UTF-8',
      TERM: 'xterm-256color',
      HTTPS_PROXY: 'http://proxy:3128',
      no_proxy: 'localhost',
      NODE_EXTRA_CA_CERTS: '/etc/ssl/corp.pem',
    });
  });

  it('keeps exact names and PREFIX* patterns given (a preset’s, the user’s --sandbox-env)', () => {
    const kept = sandboxEnv(env, ['ANTHROPIC_*', 'CLAUDE_CONFIG_DIR', 'MY_TOOL_HOME']);
    expect(kept).toMatchObject({
      ANTHROPIC_API_KEY: 'sk-ant',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
      CLAUDE_CONFIG_DIR: '/home/me/.claude',
      MY_TOOL_HOME: '/opt/tool',
    });
    // A prefix is the text before its star: ANTHROPICX does not start with ANTHROPIC_.
    expect(kept).not.toHaveProperty('ANTHROPICX');
    for (const secret of ['AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', 'RALPH_DATABASE_URL', 'TMPDIR'])
      expect(kept).not.toHaveProperty(secret);
  });

  it('matches an exact name exactly: LANGUAGE does not keep LANGUAGE_MODEL', () => {
    expect(SANDBOX_BASE_ENV).toContain('LANGUAGE');
    expect(sandboxEnv(env, [])).not.toHaveProperty('LANGUAGE_MODEL');
  });

  it('skips variables that are set to undefined', () => {
    expect(sandboxEnv({ PATH: undefined, TERM: 'dumb' }, [])).toEqual({ TERM: 'dumb' });
  });
});
