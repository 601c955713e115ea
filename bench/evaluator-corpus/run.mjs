// Runs one case of the corpus through the built CLI: a fresh temp git workspace with the seed committed, then
// `ralph run <objective> --agent-command <worker> [evaluator flags] --json --max-rounds N` in it, timed.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, runCollecting } from '../lib.mjs';

const node = process.execPath;

/** A fresh workspace holding the case's seed, committed; remove it with `removeWorkspace`. */
export function makeWorkspace(seedCase) {
  const dir = mkdtempSync(join(tmpdir(), `ralph-bench-evaluator-${seedCase.seed}-`));
  cpSync(seedCase.files, dir, { recursive: true });
  const git = (...args) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', 'commit', '-qm', 'seed');
  return dir;
}

/** Removes a workspace `makeWorkspace` made. */
export function removeWorkspace(dir) {
  rmSync(dir, { recursive: true, force: true });
}

/** The `ralph run` flags of an evaluator: none, the scripted command, or a preset with its program's path. */
export function evaluatorFlags(evaluator) {
  if (evaluator === undefined) return [];
  if (evaluator.command !== undefined) return ['--evaluator-command', evaluator.command];
  return ['--evaluator', evaluator.preset, `--${evaluator.preset}-path`, evaluator.path];
}

/**
 * Runs the case once in a fresh workspace. Resolves with the run's end: `status` (the envelope's, or `failed`
 * with the last stderr line when it printed none), the last `verdict` and `findings` when an evaluator gave one,
 * and `ms`, the wall time of the `ralph run` process. `onWorkspace` learns the workspace before the run starts.
 */
export async function runCase(seedCase, { evaluator, env = process.env, maxRounds = 1, onWorkspace } = {}) {
  const workspace = makeWorkspace(seedCase);
  try {
    onWorkspace?.(workspace);
    const argv = [
      cli,
      'run',
      seedCase.objective,
      '--agent-command',
      `"${node}" "${seedCase.worker}"`,
      ...evaluatorFlags(evaluator),
      '--cwd',
      workspace,
      '--json',
      '--max-rounds',
      String(maxRounds),
    ];
    const { stdout, stderr, ms } = await runCollecting([node, ...argv], { env });
    let envelope;
    try {
      envelope = JSON.parse(stdout);
    } catch {
      const last = stderr.trimEnd().split('\n').at(-1) ?? '';
      return { status: 'failed', problem: last, ms };
    }
    const result = envelope.result ?? {};
    return {
      status: result.status ?? 'failed',
      rounds: result.rounds,
      verdict: result.evaluation?.verdict,
      findings: result.evaluation?.findings ?? [],
      problem: result.error?.message,
      ms,
    };
  } finally {
    removeWorkspace(workspace);
  }
}
