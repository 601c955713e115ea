import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProgramUnavailableError, resolveProgram } from '../../src/process/program-check.js';

const cwd = mkdtempSync(join(tmpdir(), 'ralph-program-check-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('a round program is found as execvp finds it, before any round starts', () => {
  it('skips a PATH entry that cannot be looked into (a file, or a folder this user may not enter) instead of failing', () => {
    const node = process.execPath;
    const path = ['/etc/hostname', dirname(node)].join(':');
    expect(resolveProgram(basename(node), cwd, { PATH: path })).toBe(node);
  });

  it('says not found on PATH when no entry holds it', () => {
    expect(() => resolveProgram('no-such-program-here', cwd, { PATH: '/etc/hostname:/nonexistent' })).toThrow(
      ProgramUnavailableError,
    );
  });
});
