import { existsSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprintWorkspace } from '../../src/workspace/workspace-fingerprint.js';
import { snapshotWorkspace } from '../../src/workspace/workspace-snapshot.js';
import { gitIn, tempFolder, tempRepo } from '../support/git-repo.js';

/**
 * A repository as a sandboxed agent could leave it: its workspace holds a repository of the agent's own, added as
 * a submodule, whose config defines a clean filter and whose hooks include post-index-change, each leaving
 * `marker` when git runs it. A file of it is touched, so that a git looking whether the submodule is dirty would
 * clean it through the filter.
 */
function workspaceWithPlantedRepo() {
  const workspace = tempRepo();
  const marker = join(tempFolder('ralph-planted-'), 'ran');
  const sub = join(workspace, 'sub');
  gitIn(workspace, 'init', '--quiet', 'sub');
  writeFileSync(join(sub, 'f.txt'), 'hi\n');
  writeFileSync(join(sub, '.gitattributes'), '* filter=evil\n');
  gitIn(sub, 'config', 'filter.evil.clean', `sh -c 'echo filter > ${marker}; cat'`);
  gitIn(sub, 'add', '--all');
  gitIn(sub, 'commit', '--quiet', '-m', 'planted');
  writeFileSync(join(sub, '.git', 'hooks', 'post-index-change'), `#!/bin/sh\necho hook > ${marker}\n`, {
    mode: 0o755,
  });
  gitIn(workspace, 'add', 'sub');
  writeFileSync(join(workspace, '.gitmodules'), '[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n');
  const later = new Date(Date.now() + 5_000);
  utimesSync(join(sub, 'f.txt'), later, later);
  // The setup's own git commands in the submodule ran its filter: only what comes after counts.
  rmSync(marker, { force: true });
  return { workspace, marker };
}

describe("ralph's own git commands on a workspace, which run outside any sandbox", () => {
  const signal = new AbortController().signal;

  it("the idle watch's fingerprint runs no filter or hook of a repository an agent left in the workspace", async () => {
    const { workspace, marker } = workspaceWithPlantedRepo();
    await fingerprintWorkspace(workspace, { signal });
    expect(existsSync(marker)).toBe(false);
  });

  it("the evaluator's snapshot runs none either", async () => {
    const { workspace, marker } = workspaceWithPlantedRepo();
    await snapshotWorkspace(workspace, { signal });
    expect(existsSync(marker)).toBe(false);
  });

  it('a new commit of the submodule still changes the fingerprint', async () => {
    const { workspace } = workspaceWithPlantedRepo();
    const before = await fingerprintWorkspace(workspace, { signal });
    gitIn(
      join(workspace, 'sub'),
      '-c',
      'core.hooksPath=/dev/null',
      'commit',
      '--quiet',
      '--allow-empty',
      '-m',
      'more',
    );
    expect(await fingerprintWorkspace(workspace, { signal })).not.toBe(before);
  });
});
