import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codexRefusesHelpers } from '../../src/providers/codex-temp-dir.js';

// Paths outside /tmp that need not exist: /tmp itself always counts.
const TEMP = '/srv/ralph-test-temp';

describe('whether codex could refuse to make its helper aliases in its CODEX_HOME', () => {
  it('a CODEX_HOME in TMPDIR (or TMPDIR itself) is refused; one beside it is not', () => {
    expect(codexRefusesHelpers({ CODEX_HOME: `${TEMP}/home`, TMPDIR: TEMP })).toBe(true);
    expect(codexRefusesHelpers({ CODEX_HOME: TEMP, TMPDIR: TEMP })).toBe(true);
    expect(codexRefusesHelpers({ CODEX_HOME: `${TEMP}/home`, TMPDIR: `${TEMP}/tmp` })).toBe(false);
    // Component by component: /x/temp-other is not in /x/temp.
    expect(codexRefusesHelpers({ CODEX_HOME: `${TEMP}-other`, TMPDIR: TEMP })).toBe(false);
  });

  it('/tmp counts with or without TMPDIR (ralph’s sandbox drops TMPDIR); an empty TMPDIR is a prefix of every path', () => {
    expect(codexRefusesHelpers({ CODEX_HOME: '/tmp/some-codex-home' })).toBe(true);
    expect(codexRefusesHelpers({ CODEX_HOME: '/tmp/some-codex-home', TMPDIR: TEMP })).toBe(true);
    expect(codexRefusesHelpers({ CODEX_HOME: '/var/lib/some-codex-home' })).toBe(false);
    expect(codexRefusesHelpers({ CODEX_HOME: '/var/lib/some-codex-home', TMPDIR: '' })).toBe(true);
  });

  it('without CODEX_HOME it is ~/.codex', () => {
    expect(codexRefusesHelpers({ HOME: `${TEMP}/user`, TMPDIR: TEMP })).toBe(true);
    expect(codexRefusesHelpers({ HOME: `${TEMP}/user`, TMPDIR: `${TEMP}/tmp` })).toBe(false);
  });

  it('a CODEX_HOME linked into TMPDIR counts where it really is, as codex resolves it', async () => {
    // A link outside /tmp, which counts whatever it points to.
    const root = await mkdtemp('/var/tmp/ralph-codex-temp-');
    try {
      await mkdir(join(root, 'tmp', 'real-home'), { recursive: true });
      await symlink(join(root, 'tmp', 'real-home'), join(root, 'linked-home'));
      const env = { CODEX_HOME: join(root, 'linked-home') };
      expect(codexRefusesHelpers({ ...env, TMPDIR: join(root, 'tmp') })).toBe(true);
      expect(codexRefusesHelpers({ ...env, TMPDIR: join(root, 'other') })).toBe(false);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
