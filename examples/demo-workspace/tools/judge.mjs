// An independent evaluator for this workspace (ralph run … --evaluator-command 'node tools/judge.mjs'): it checks the
// workspace itself, never the worker's word, changes nothing, and prints its verdict as the last JSON object on
// stdout (the command agent protocol; RALPH_ROLE is "evaluator" in its environment).
import { existsSync, readFileSync } from 'node:fs';

const findings = readFileSync('TASKS.md', 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('- [ ] '))
  .map((line) => `not done: ${line.slice('- [ ] '.length)}`);
for (const file of ['hello.txt', 'notes/plan.md']) if (!existsSync(file)) findings.push(`${file} is missing`);
const summary = existsSync('SUMMARY.txt') ? readFileSync('SUMMARY.txt', 'utf8').split('\n')[0] : undefined;
if (summary !== '2 files, 6 lines')
  findings.push(
    `SUMMARY.txt should start "2 files, 6 lines" (it ${summary === undefined ? 'is missing' : `says "${summary}"`})`,
  );

const verdict =
  findings.length > 0
    ? { verdict: 'reject', findings, evidence: [] }
    : {
        verdict: 'accept',
        findings: [],
        evidence: [
          'every box in TASKS.md is ticked',
          'hello.txt and notes/plan.md are there',
          'SUMMARY.txt: 2 files, 6 lines',
        ],
      };
console.log(JSON.stringify(verdict));
