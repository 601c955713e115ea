import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTaskWorktree } from '../../src/fleet/batch-clone.js';
import type { FleetBatchTask } from '../../src/fleet/batch-input.js';
import { statePath } from '../../src/fleet/state-folder.js';
import { gitIn, tempFolder, tempRepo } from '../support/git-repo.js';

describe("a worker's state folder", () => {
  it('a symlink on the way out of it: the task is refused, and the folder it leads to is kept', async () => {
    const side = tempFolder('ralph-state-');
    const bare = join(side, 'remote.git');
    gitIn(side, 'clone', '--quiet', '--bare', tempRepo(), bare);
    const batchId = '20261201-1200-abcdef';
    const task: FleetBatchTask = {
      batchId,
      taskId: 'one',
      repo: `file://${bare}`,
      target: 'main',
      branch: `ralph/${batchId}/one`,
      base: gitIn(bare, 'rev-parse', 'main'),
      after: [],
      verify: null,
      verifyTimeoutMs: 60_000,
    };
    const stateDir = join(side, 'state');
    const victim = join(side, 'victim');
    mkdirSync(join(victim, 'one'), { recursive: true });
    writeFileSync(join(victim, 'one', 'keep.txt'), 'mine\n');
    mkdirSync(join(stateDir, 'worktrees'), { recursive: true });
    symlinkSync(victim, join(stateDir, 'worktrees', batchId));
    await expect(openTaskWorktree({ stateDir }, task, task.base)).rejects.toThrow(
      `ralph fleet: "${join(stateDir, 'worktrees', batchId, 'one')}" is not under the worker's state folder ${stateDir}; refused`,
    );
    expect(readFileSync(join(victim, 'one', 'keep.txt'), 'utf8')).toBe('mine\n');
  });

  it('a path of ids climbing out, or naming the folder itself, is refused; one below it is given resolved', () => {
    const stateDir = tempFolder('ralph-state-');
    expect(() => statePath(stateDir, 'worktrees', 'b', '../../../x')).toThrow(
      `ralph fleet: "${join(stateDir, '..', 'x')}" is not under the worker's state folder ${stateDir}; refused`,
    );
    expect(() => statePath(stateDir, 'merges', '..', '..')).toThrow('is not under the worker');
    expect(() => statePath(stateDir, '/etc')).toThrow('is not under the worker');
    expect(statePath(`${stateDir}/.`, 'merges', 'b', 't')).toBe(join(stateDir, 'merges', 'b', 't'));
  });
});
