import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** Runs git in `cwd` with a fixed identity; its output, trimmed. */
export function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@localhost', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();
}

/** A temporary folder, removed once the test that made it has finished. */
export function tempFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/** A fresh repository in a temporary folder on branch main, with `files` committed as its first commit. */
export function tempRepo(files: Record<string, string> = { 'README.md': 'hello\n' }): string {
  const repo = tempFolder('ralph-batch-repo-');
  gitIn(repo, 'init', '--quiet', '--initial-branch=main');
  for (const [name, content] of Object.entries(files)) writeFileSync(join(repo, name), content);
  gitIn(repo, 'add', '--all');
  gitIn(repo, 'commit', '--quiet', '-m', 'first');
  return repo;
}

/** Commits `files` on the branch checked out in `cwd`; the new commit's id. */
export function commitFiles(cwd: string, files: Record<string, string>, message = 'change'): string {
  for (const [name, content] of Object.entries(files)) writeFileSync(join(cwd, name), content);
  gitIn(cwd, 'add', '--all');
  gitIn(cwd, 'commit', '--quiet', '-m', message);
  return gitIn(cwd, 'rev-parse', 'HEAD');
}

/**
 * A repository whose `origin` is a bare one (what GitHub would serve) holding its main, with HEAD detached so a batch
 * `--into main` may move main.
 */
export function repoWithOrigin(): { repo: string; origin: string } {
  const repo = tempRepo();
  const origin = tempFolder('ralph-origin-');
  gitIn(origin, 'init', '--quiet', '--bare');
  gitIn(repo, 'remote', 'add', 'origin', origin);
  gitIn(repo, 'push', '--quiet', 'origin', 'main');
  gitIn(repo, 'checkout', '--quiet', '--detach');
  return { repo, origin };
}
