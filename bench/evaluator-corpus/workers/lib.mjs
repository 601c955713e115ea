// What every scripted worker of the corpus does around its change: it drains its prompt (it reads nothing of it:
// the worker is a script, not a model), writes files into its workspace (the current directory), and reports
// `complete` to RALPH_REPORT_FILE (the command agent protocol), whether or not the work is done.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Drains the round prompt from stdin, so that ralph's write of it never meets a closed pipe. */
export async function drainPrompt() {
  for await (const _chunk of process.stdin) {
    // The scripted worker does what its script says, whatever the prompt.
  }
}

/** Writes `text` to `path` in the workspace, making its folder. */
export function write(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Rewrites the file at `path` in the workspace with `change`. */
export function edit(path, change) {
  writeFileSync(path, change(readFileSync(path, 'utf8')));
}

/** Reports the objective complete, with the worker's summary and evidence (true or not). */
export function reportComplete(summary, evidence) {
  const report = { status: 'complete', summary, evidence, nextSteps: [], blocker: null };
  writeFileSync(process.env.RALPH_REPORT_FILE, JSON.stringify(report));
}
