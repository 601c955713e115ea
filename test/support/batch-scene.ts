import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempFolder, tempRepo } from './git-repo.js';

/**
 * A repository with `files` committed, a tasks file beside it (outside the repository, in a folder `folder` of a
 * temporary one when given), and a log the fake batch agents write to (`start <pid>` / `end <pid>` lines).
 */
export function batchScene(
  tasks: unknown,
  files: Record<string, string> = { 'README.md': 'hello\n' },
  folder?: string,
) {
  const repo = tempRepo(files);
  const temporary = tempFolder('ralph-batch-side-');
  const side = folder === undefined ? temporary : join(temporary, folder);
  mkdirSync(side, { recursive: true });
  const tasksFile = join(side, 'tasks.json');
  writeFileSync(tasksFile, JSON.stringify(tasks));
  const log = join(side, 'agents.log');
  const env = { ...process.env, BATCH_AGENT_LOG: log };
  const agentLines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
  return { repo, tasksFile, env, agentLines };
}
