import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, test } from 'vitest';
import { ralph } from '../fixtures/cli-agents/harness.js';
import { batchScene } from '../support/batch-scene.js';
import { gitIn, tempFolder } from '../support/git-repo.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/batch-agents/${name}`, import.meta.url));
const AGENT = quote([process.execPath, fixture('edit-agent.mjs')]);

/**
 * Two tasks (one whose agent commits itself, one whose agent leaves its file to ralph), a home with a planted key,
 * and a verify command that passes only in the sandbox: it runs in each task's loop and in the merge queue.
 */
function scene() {
  const { repo, tasksFile, env } = batchScene([
    { id: 'a', objective: 'commit a.txt from a' },
    { id: 'b', objective: 'write b.txt from b' },
  ]);
  const home = tempFolder('ralph-batch-home-');
  mkdirSync(join(home, '.ssh'));
  const key = join(home, '.ssh', 'id_ed25519');
  writeFileSync(key, 'planted secret\n');
  const verify = quote([process.execPath, fixture('sandboxed-check.mjs'), key]);
  const args = ['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, '--verify', verify];
  return { repo, args, home, env: { ...env, HOME: home } };
}

/** The batch's target branch as the summary names it. */
const targetOf = (stdout: string): string => /^target (\S+);/m.exec(stdout)?.[1] ?? '';

describe('ralph batch --sandbox', () => {
  test('every task lands: the agents commit in their worktrees, and the verify runs sandboxed in the loops and the merges', async () => {
    const s = scene();

    const run = await ralph([...s.args, '--sandbox', '--sandbox-network', 'none', '--max-rounds', '2'], {
      cwd: s.repo,
      env: s.env,
    });

    expect(run.code, run.stdout + run.stderr).toBe(0);
    const target = targetOf(run.stdout);
    expect(gitIn(s.repo, 'show', `${target}:a.txt`)).toBe('from a');
    expect(gitIn(s.repo, 'show', `${target}:b.txt`)).toBe('from b');
    expect(gitIn(s.repo, 'log', '--format=%s', target).split('\n')).toContain('agent: a.txt');
    expect(existsSync(join(s.home, 'verify-was-here'))).toBe(false);
  }, 90_000);

  test('without --sandbox the same verify sees the key and the recording: no task lands', async () => {
    const s = scene();

    const run = await ralph([...s.args, '--max-rounds', '1'], { cwd: s.repo, env: s.env });

    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).not.toMatch(/^\w: landed$/m);
    expect(existsSync(join(s.home, 'verify-was-here'))).toBe(true);
  }, 90_000);

  test('is refused where bubblewrap cannot run (exit 2), before the batch makes its branch', async () => {
    const s = scene();
    const env = { ...s.env, RALPH_BWRAP: '/nonexistent/bwrap' };

    const run = await ralph([...s.args, '--sandbox'], { cwd: s.repo, env });

    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('bubblewrap (/nonexistent/bwrap) was not found');
    expect(gitIn(s.repo, 'branch', '--list', 'ralph/*')).toBe('');
  });
});
