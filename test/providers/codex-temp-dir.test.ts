import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexRefusesHelpers } from '../../src/providers/codex-temp-dir.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'ralph-codex-temp-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('whether codex would refuse to make its helper aliases in its CODEX_HOME', () => {
  it('a CODEX_HOME in TMPDIR (or TMPDIR itself) is refused; one beside it is not', () => {
    expect(codexRefusesHelpers({ CODEX_HOME: join(root, 'home'), TMPDIR: root })).toBe(true);
    expect(codexRefusesHelpers({ CODEX_HOME: root, TMPDIR: root })).toBe(true);
    expect(codexRefusesHelpers({ CODEX_HOME: join(root, 'home'), TMPDIR: join(root, 'tmp') })).toBe(false);
    // Component by component: /x/tmp-other is not in /x/tmp.
    expect(codexRefusesHelpers({ CODEX_HOME: `${root}-other`, TMPDIR: root })).toBe(false);
  });

  it('without TMPDIR the temporary folder is /tmp; an empty TMPDIR is a prefix of every path', () => {
    expect(codexRefusesHelpers({ CODEX_HOME: '/tmp/some-codex-home' })).toBe(true);
    expect(codexRefusesHelpers({ CODEX_HOME: '/var/lib/some-codex-home' })).toBe(false);
    expect(codexRefusesHelpers({ CODEX_HOME: '/var/lib/some-codex-home', TMPDIR: '' })).toBe(true);
  });

  it('without CODEX_HOME it is ~/.codex; a CODEX_HOME linked into TMPDIR counts where it really is', async () => {
    expect(codexRefusesHelpers({ HOME: join(root, 'user'), TMPDIR: root })).toBe(true);
    expect(codexRefusesHelpers({ HOME: join(root, 'user'), TMPDIR: join(root, 'tmp') })).toBe(false);
    await mkdir(join(root, 'tmp', 'real-home'), { recursive: true });
    await symlink(join(root, 'tmp', 'real-home'), join(root, 'linked-home'));
    expect(codexRefusesHelpers({ CODEX_HOME: join(root, 'linked-home'), TMPDIR: join(root, 'tmp') })).toBe(
      true,
    );
  });
});
