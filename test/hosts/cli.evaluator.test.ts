import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  evaluatedCompleteLabel,
  evaluatorChangedWorkspace,
  evaluatorFailed,
  lastRejectionNote,
  type RalphEnvelope,
  verdictJsonSchema,
  verdictMalformed,
  verdictMissing,
  verdictOversized,
} from '../../src/index.js';
import { judgedArgs, OBJECTIVE, useEvaluatorScene } from '../fixtures/evaluators/harness.js';

const scene = useEvaluatorScene();
const FINDING = 'add.js is missing from the workspace, though TASKS.md ticks it';

const runJudged = (mode: 'liar' | 'honest', judge: string[], ...extra: string[]) =>
  scene.run(judgedArgs(mode, judge, ...extra));

describe('ralph run --evaluator-command: a worker that lies about completion', () => {
  it('is rejected every round, the findings reach the next worker, and the cap ends it budget-limited (exit 4, --json)', async () => {
    const out = await runJudged('liar', ['needs', 'add.js'], '--max-rounds', '2', '--json');

    expect(out.code).toBe(4);
    const envelope = JSON.parse(out.stdout) as RalphEnvelope;
    expect(envelope.agentsStarted).toBe(2);
    expect(envelope.result).toMatchObject({
      status: 'budget-limited',
      rounds: 2,
      report: {
        status: 'continue',
        nextSteps: [
          'An independent evaluator checked the workspace and rejected the reported completion; address its findings:',
          `Evaluator finding: ${FINDING}`,
        ],
      },
    });
    expect(envelope.result.evaluation).toEqual({
      evaluator: 'command-evaluator',
      round: 2,
      verdict: 'reject',
      findings: [FINDING],
      evidence: [],
      evaluatorsStarted: 2,
    });
    expect(existsSync(join(scene.scratch.workspace, 'add.js'))).toBe(false);

    // Round 1's worker had no handoff; round 2's worker read the evaluator's finding in its prompt.
    const [first, second] = scene.workers();
    expect(first?.prompt).not.toContain('Evaluator finding');
    expect(second?.prompt).toContain(`"Evaluator finding: ${FINDING}"`);
  });

  it('prints the budget-limited label, the last rejection and the progress lines in text mode', async () => {
    const out = await runJudged('liar', ['needs', 'add.js'], '--max-rounds', '2');

    expect(out.code).toBe(4);
    expect(out.stdout).toMatch(
      new RegExp(
        `^Ralph reached its 2 rounds limit; the worker reported work remaining\\.\\n${lastRejectionNote(2, 1).replace(/[()]/g, '\\$&')}\\n`,
      ),
    );
    expect(out.stderr.split('\n')).toEqual([
      'ralph: round 1/2 started',
      'ralph: round 1/2 reported complete: add.js is written and the box in TASKS.md is ticked',
      'ralph: round 1/2 evaluator command-evaluator checking the reported completion in the workspace',
      'ralph: round 1/2 evaluator rejected: 1 finding',
      'ralph: round 2/2 started',
      'ralph: round 2/2 reported complete: add.js is written and the box in TASKS.md is ticked',
      'ralph: round 2/2 evaluator command-evaluator checking the reported completion in the workspace',
      'ralph: round 2/2 evaluator rejected: 1 finding',
      '',
    ]);
  });

  it('starts each evaluator fresh in the workspace: the objective, the report, RALPH_ROLE=evaluator, the verdict schema', async () => {
    await runJudged('liar', ['needs', 'add.js'], '--max-rounds', '2');

    const judges = scene.judges();
    expect(judges).toHaveLength(2);
    for (const [index, judge] of judges.entries()) {
      expect(judge.cwd).toBe(scene.scratch.workspace);
      expect(judge.env.RALPH_ROLE).toBe('evaluator');
      expect(judge.env.RALPH_ROUND).toBe(String(index + 1));
      expect(judge.schema).toEqual(verdictJsonSchema);
      expect(judge.prompt).toContain(`Objective (immutable):\n${OBJECTIVE}\n`);
      expect(judge.prompt).toContain('"summary": "add.js is written and the box in TASKS.md is ticked"');
      // No earlier evaluator's output reaches it: the report it judges is the worker's own, as the worker wrote it.
      expect(judge.prompt).not.toContain('Evaluator finding');
    }
    // A worker's environment is the protocol's as before: no role.
    for (const worker of scene.workers()) expect(worker.env).not.toHaveProperty('RALPH_ROLE');
  });
});

describe('ralph run --evaluator-command: an honest worker', () => {
  it('is accepted: exit 0, and the label says an independent evaluator accepted it', async () => {
    const out = await runJudged('honest', ['needs', 'add.js'], '--max-rounds', '2');

    expect(out.code).toBe(0);
    expect(out.stdout.split('\n')[0]).toBe(evaluatedCompleteLabel(1, 'command-evaluator'));
    expect(out.stderr).toContain('ralph: round 1/2 evaluator accepted: 1 piece of evidence\n');
    expect(scene.judges()).toHaveLength(1);
  });

  it('carries the accepting verdict in --json', async () => {
    const out = await runJudged('honest', ['needs', 'add.js'], '--max-rounds', '2', '--json');

    expect(out.code).toBe(0);
    const envelope = JSON.parse(out.stdout) as RalphEnvelope;
    // The evaluator is no round's agent: agentsStarted counts the workers, evaluatorsStarted the evaluators.
    expect(envelope.agentsStarted).toBe(1);
    expect(envelope.result).toMatchObject({ status: 'complete', rounds: 1 });
    expect(envelope.result.evaluation).toEqual({
      evaluator: 'command-evaluator',
      round: 1,
      verdict: 'accept',
      findings: [],
      evidence: ['add.js is in the workspace'],
      evaluatorsStarted: 1,
    });
  });

  it('is judged again by a fresh evaluator after a rejection, and completes once it accepts', async () => {
    const out = await runJudged('honest', ['reject-once'], '--max-rounds', '3', '--json');

    expect(out.code).toBe(0);
    const envelope = JSON.parse(out.stdout) as RalphEnvelope;
    expect(envelope.result).toMatchObject({ status: 'complete', rounds: 2 });
    expect(envelope.result.evaluation).toMatchObject({ verdict: 'accept', round: 2, evaluatorsStarted: 2 });
    const [first, second] = scene.judges();
    expect(second?.pid).not.toBe(first?.pid);
  });
});

describe('ralph run --evaluator-command: an evaluator that fails the workflow (exit 1)', () => {
  it('names the file an evaluator that edits the workspace changed', async () => {
    const out = await runJudged('liar', ['edit'], '--max-rounds', '2');

    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(
      `Ralph workflow failed: ${evaluatorChangedWorkspace(1, ['sneaky.txt (added)'])}`,
    );
    expect(out.stderr).toContain('sneaky.txt (added)');
    // The run stopped there: the evaluator's edit never became a completion, and no second round started.
    expect(scene.workers()).toHaveLength(1);
  });

  it.each([
    ['gives no verdict', 'silent', verdictMissing(1)],
    [
      'gives a reject without a finding',
      'malformed',
      verdictMalformed(1, 'findings: a reject verdict must name a finding'),
    ],
    ['gives a verdict over the handoff cap', 'oversized', verdictOversized(1, 20_050, 16_384)],
    [
      'crashes',
      'crash',
      evaluatorFailed(
        1,
        `agent command ${JSON.stringify(process.execPath)} exited with code 3; stderr ends with:\nthe judge crashed on purpose`,
      ),
    ],
  ])('fails when the evaluator %s', async (_, mode, message) => {
    const out = await runJudged('liar', [mode], '--max-rounds', '2');

    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(`Ralph workflow failed: ${message}`);
    expect(scene.workers()).toHaveLength(1);
  });
});
