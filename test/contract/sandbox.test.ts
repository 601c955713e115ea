import { describe, expect, it } from 'vitest';
import { normalizeConfig } from '../../src/contract/config.js';
import { fleetSandboxAskRefused } from '../../src/contract/fleet-sandbox-messages.js';
import { SANDBOX_BASE_ENV, sandboxSchema } from '../../src/contract/sandbox.js';
import {
  providerCannotSandbox,
  sandboxBwrapMissing,
  sandboxCannotStart,
  sandboxLinuxOnly,
} from '../../src/contract/sandbox-messages.js';

describe('the config’s sandbox', () => {
  it('keeps the network and adds nothing by default', () => {
    expect(sandboxSchema.parse({})).toEqual({ network: 'keep', env: [], hide: [] });
    expect(normalizeConfig({ subagentProvider: 'p', sandbox: {} }).sandbox).toEqual({
      network: 'keep',
      env: [],
      hide: [],
    });
    expect(normalizeConfig({ subagentProvider: 'p' }).sandbox).toBeUndefined();
  });

  it('takes variable names and PREFIX* patterns, absolute paths to hide, and no network but keep or none', () => {
    expect(
      sandboxSchema.parse({ network: 'none', env: ['A_B', 'ANTHROPIC_*', '_x1'], hide: ['/srv/t'] }),
    ).toEqual({
      network: 'none',
      env: ['A_B', 'ANTHROPIC_*', '_x1'],
      hide: ['/srv/t'],
    });
    for (const bad of [
      { network: 'host' },
      { env: ['1ABC'] },
      { env: ['A-B'] },
      { env: ['A*B'] },
      { env: ['*'] },
      { env: [' A'] },
      { hide: ['relative/path'] },
      { hide: [`/${'x'.repeat(4_096)}`] },
      { env: Array.from({ length: 1_001 }, (_, i) => `V${i}`) },
      { hide: Array.from({ length: 1_001 }, (_, i) => `/p${i}`) },
      { extra: true },
    ])
      expect(sandboxSchema.safeParse(bad).success, JSON.stringify(bad).slice(0, 80)).toBe(false);
    expect(sandboxSchema.safeParse({ env: Array.from({ length: 1_000 }, (_, i) => `V${i}`) }).success).toBe(
      true,
    );
    expect(sandboxSchema.safeParse({ hide: [`/${'x'.repeat(4_095)}`] }).success).toBe(true);
    expect(sandboxSchema.parse({ network: 'keep' }).network).toBe('keep');
    expect(sandboxSchema.safeParse({ env: ['A-B'] }).error?.issues[0]?.message).toBe(
      'an environment variable name, or a prefix ending in *',
    );
  });

  it('passes the search path, the user, the locale, the terminal, the time zone, proxies and certificates, no more', () => {
    expect(SANDBOX_BASE_ENV).toEqual([
      'PATH',
      'HOME',
      'USER',
      'LOGNAME',
      'SHELL',
      'LANG',
      'LANGUAGE',
      'LC_*',
      'TERM',
      'COLORTERM',
      'NO_COLOR',
      'TZ',
      'HTTP_PROXY',
      'HTTPS_PROXY',
      'NO_PROXY',
      'http_proxy',
      'https_proxy',
      'no_proxy',
      'NODE_EXTRA_CA_CERTS',
      'SSL_CERT_FILE',
      'SSL_CERT_DIR',
    ]);
  });
});

describe('the sandbox’s refusals, word for word', () => {
  it('says the sandbox is Linux-only on another platform', () => {
    expect(sandboxLinuxOnly('darwin')).toBe(
      'Ralph cannot run in a sandbox on darwin: the sandbox is Linux-only for now (it uses bubblewrap). Run without --sandbox, or run ralph inside a Linux VM or container.',
    );
  });

  it('says how to install bubblewrap where it is missing', () => {
    expect(sandboxBwrapMissing('bwrap')).toBe(
      'Ralph cannot run in a sandbox: bubblewrap (bwrap) was not found. Install it (Debian and Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap), or run without --sandbox.',
    );
  });

  it('says why bubblewrap could not start, and how to turn user namespaces on', () => {
    expect(sandboxCannotStart('bwrap: setting up uid map: Permission denied')).toBe(
      'Ralph cannot run in a sandbox: bubblewrap could not create its namespaces (bwrap: setting up uid map: Permission denied). Unprivileged user namespaces are probably off: enable them (sudo sysctl -w kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 and later, sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0), or run without --sandbox.',
    );
  });

  it('names the provider, and its role, that starts no process a sandbox could hold', () => {
    expect(providerCannotSandbox('scripted', 'subagent')).toBe(
      'Ralph cannot run subagent provider "scripted" in a sandbox: it does not start its children as processes ralph can sandbox (command agents and the agent CLI presets can). Use a command provider, or run without the sandbox.',
    );
    expect(providerCannotSandbox('ai-sdk', 'evaluator')).toContain(
      'Ralph cannot run evaluator provider "ai-sdk"',
    );
  });

  it('says which worker refused a stored sandbox setting, and why', () => {
    expect(fleetSandboxAskRefused('w1', 'its network is "host", not "keep" or "none"')).toBe(
      'ralph fleet: worker w1 refuses the run\'s sandbox setting: its network is "host", not "keep" or "none". Nothing was started',
    );
  });
});
