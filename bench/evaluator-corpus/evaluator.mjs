// The scripted evaluator of the corpus, a command agent (`--evaluator-command "node evaluator.mjs"`): it reads the
// objective from its prompt on stdin, reviews the workspace (its current directory) with the careful reviewer, and
// writes the verdict to RALPH_REPORT_FILE. It writes nothing else in the workspace: ralph fails the run if the
// workspace changes. (The bench may set RALPH_BENCH_REVIEW_LOG, a file outside it, to learn how long the review took.)
import { appendFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { objectiveOfPrompt, review } from './reviewer.mjs';

let prompt = '';
for await (const chunk of process.stdin) prompt += chunk;
const objective = objectiveOfPrompt(prompt);
if (objective === undefined) {
  process.stderr.write(
    'evaluator.mjs: the prompt is not an evaluator prompt (no "Objective (immutable):")\n',
  );
  process.exit(1);
}
const started = performance.now();
const verdict = review(process.cwd(), objective);
if (process.env.RALPH_BENCH_REVIEW_LOG !== undefined)
  appendFileSync(process.env.RALPH_BENCH_REVIEW_LOG, `${performance.now() - started}\n`);
writeFileSync(process.env.RALPH_REPORT_FILE, JSON.stringify(verdict));
