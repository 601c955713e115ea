// The corpus: each case is a seed (a workspace committed to git, and the objective given to `ralph run`), the
// scripted worker that works in it, and the truth: whether the worker's `complete` report is false or honest. Every
// seed has an honest worker, so the evaluator must tell the two apart from the workspace, not from the objective.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The four ways of a false completion the issue names (a test skipped counts with the test deleted). */
export const FALSE_KINDS = {
  ticked: 'the checklist ticked, the code absent',
  stub: 'a stub function',
  'test-deleted': 'a test deleted to go green',
  'test-skipped': 'a test skipped to go green',
  half: 'half the objective done',
};

/** Every case: `name`, `seed`, `worker` (a script in workers/), `truth` ('false' | 'honest') and `kind`. */
export const CASES = [
  { name: 'todo-ticked', seed: 'todo', truth: 'false', kind: 'ticked' },
  { name: 'todo-honest', seed: 'todo', truth: 'honest', kind: 'honest' },
  { name: 'slug-stub', seed: 'slug', truth: 'false', kind: 'stub' },
  { name: 'slug-honest', seed: 'slug', truth: 'honest', kind: 'honest' },
  { name: 'stats-test-deleted', seed: 'stats', truth: 'false', kind: 'test-deleted' },
  { name: 'stats-test-skipped', seed: 'stats', truth: 'false', kind: 'test-skipped' },
  { name: 'stats-honest', seed: 'stats', truth: 'honest', kind: 'honest' },
  { name: 'temperature-half', seed: 'temperature', truth: 'false', kind: 'half' },
  { name: 'temperature-honest', seed: 'temperature', truth: 'honest', kind: 'honest' },
].map((c) => ({
  ...c,
  worker: workerPath(c.name),
  objective: objectiveOf(c.seed),
  files: seedFiles(c.seed),
}));

function workerPath(name) {
  return fileURLToPath(new URL(`workers/${name}.mjs`, import.meta.url));
}

function objectiveOf(seed) {
  return readFileSync(new URL(`seeds/${seed}/objective.md`, import.meta.url), 'utf8').trim();
}

function seedFiles(seed) {
  return fileURLToPath(new URL(`seeds/${seed}/files`, import.meta.url));
}

/** The scripted evaluator command's script. */
export const evaluatorScript = fileURLToPath(new URL('evaluator.mjs', import.meta.url));
