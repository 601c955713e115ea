import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { toolFoldersUnder } from '../../src/process/sandbox-tools.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A home with a tool installed the way agent CLIs install themselves: a link in ~/.local/bin to ~/.local/share. */
function homeWithTool(): string {
  const home = mkdtempSync(join(tmpdir(), 'ralph-tools-home-'));
  made.push(home);
  mkdirSync(join(home, '.local', 'bin'), { recursive: true });
  mkdirSync(join(home, '.local', 'share', 'agent', 'versions'), { recursive: true });
  mkdirSync(join(home, '.local', 'share', 'keyrings'), { recursive: true });
  mkdirSync(join(home, '.nvm', 'versions', 'node', 'v20', 'bin'), { recursive: true });
  writeFileSync(join(home, '.local', 'share', 'agent', 'versions', '1.0'), '#!/bin/sh\n');
  symlinkSync(
    join(home, '.local', 'share', 'agent', 'versions', '1.0'),
    join(home, '.local', 'bin', 'agent'),
  );
  writeFileSync(join(home, '.nvm', 'versions', 'node', 'v20', 'bin', 'node'), '');
  return home;
}

describe('the programs a sandboxed round runs from the home stay visible, and only they', () => {
  it("binds a PATH folder in the home and the folder each of its links leads to, not the container's other folders", () => {
    const home = homeWithTool();
    const roots = toolFoldersUnder(home, `${join(home, '.local', 'bin')}:/usr/bin`, []);
    expect(roots.sort()).toEqual(
      [join(home, '.local', 'bin'), join(home, '.local', 'share', 'agent')].sort(),
    );
    expect(roots).not.toContain(join(home, '.local', 'share'));
  });

  it('binds the tool root of a program in the home (this Node under ~/.nvm), each root once', () => {
    const home = homeWithTool();
    const node = join(home, '.nvm', 'versions', 'node', 'v20', 'bin', 'node');
    expect(toolFoldersUnder(home, join(home, '.nvm', 'versions', 'node', 'v20', 'bin'), [node])).toEqual([
      join(home, '.nvm'),
    ]);
  });

  it('binds nothing for programs and PATH folders outside the home, or that do not exist', () => {
    const home = homeWithTool();
    expect(
      toolFoldersUnder(home, '/usr/bin:/bin:relative/bin', [process.execPath, join(home, 'missing')]),
    ).toEqual([]);
  });
});
