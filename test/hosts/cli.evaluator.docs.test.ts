import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { evaluatedCompleteLabel, type RalphEnvelope } from '../../src/index.js';
import { ralph } from '../fixtures/cli-agents/harness.js';
import { OBJECTIVE, workerCommand } from '../fixtures/evaluators/harness.js';
import { docBlock, projectPage } from '../support/doc-block.js';
import { cleanEnv, useScratch } from '../support/processes.js';

const s = useScratch();
const DEMO_WORKSPACE = fileURLToPath(new URL('../../examples/demo-workspace', import.meta.url));
const SECTION = '## An independent evaluator';

/** One round of the scripted worker in `mode` in the scratch workspace, judged by `evaluator`, with --json. */
const oneJudgedRound = (objective: string, mode: 'liar' | 'honest', evaluator: string) =>
  ralph(
    [
      'run',
      objective,
      '--agent-command',
      workerCommand(mode),
      '--evaluator-command',
      evaluator,
      '--cwd',
      s.workspace,
      '--max-rounds',
      '1',
      '--json',
    ],
    { env: cleanEnv({ FIXTURE_PID_LOG: s.pidLog }) },
  );

describe("the README's independent evaluator example: the demo workspace's tools/judge.mjs", () => {
  it("accepts the example agent's work on the demo workspace: the README line exits 0 with the label it promises", async () => {
    await cp(DEMO_WORKSPACE, s.workspace, { recursive: true });
    const line = (await docBlock('README.md', SECTION, 'sh')).split('\n')[1] as string;
    const words = parse(line.replaceAll('/tmp/demo', s.workspace)).filter((word) => typeof word === 'string');
    expect(words.slice(0, 3)).toEqual(['npx', 'ralph', 'run']);

    const out = await ralph(words.slice(2), { env: cleanEnv() });

    expect(out.code).toBe(0);
    const label = evaluatedCompleteLabel(3, 'command-evaluator');
    expect(out.stdout.split('\n')[0]).toBe(label);
    const readme = (await projectPage('README.md')).replace(/\s+/g, ' ');
    expect(readme).toContain(`It prints \`${label}\``);
  });

  it('rejects a worker that ticks its own checklist without doing the tasks: exit 4, the findings named', async () => {
    await cp(DEMO_WORKSPACE, s.workspace, { recursive: true });

    const out = await oneJudgedRound('Tick every box in TASKS.md', 'liar', 'node tools/judge.mjs');

    expect(out.code).toBe(4);
    expect((JSON.parse(out.stdout) as RalphEnvelope).result.evaluation).toMatchObject({
      verdict: 'reject',
      findings: [
        'hello.txt is missing',
        'notes/plan.md is missing',
        'SUMMARY.txt should start "2 files, 6 lines" (it is missing)',
      ],
    });
  });
});

describe("docs/agents.md's sample evaluator follows the protocol", () => {
  it.each([
    ['liar', 4, 'reject'],
    ['honest', 0, 'accept'],
  ] as const)('judges the %s worker: exit %i, verdict %s', async (mode, code, verdict) => {
    const judge = join(s.logs, 'sample-evaluator.mjs');
    await writeFile(judge, await docBlock('docs/agents.md', 'A sample evaluator', 'js'));

    const out = await oneJudgedRound(OBJECTIVE, mode, quote([process.execPath, judge]));

    expect(out.code).toBe(code);
    expect((JSON.parse(out.stdout) as RalphEnvelope).result.evaluation?.verdict).toBe(verdict);
  });
});
