import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { verdictMalformed } from '../../../src/contract/evaluator-messages.js';
import type { EvaluatorVerdict } from '../../../src/contract/evaluator-verdict.js';
import { workflowFailed } from '../../../src/contract/messages.js';
import { type Finished, spawnRalph } from '../../fixtures/cli-agents/harness.js';
import { agentCommand } from '../../support/processes.js';
import { onCleanup } from './cleanups.js';

/** The objective of a judged run. */
export const OBJECTIVE = 'Make add.js export add(a, b) returning the sum of a and b';
/** What add.js holds before the worker fixes it: a subtraction, which the evaluator is to find. */
export const BUGGY_ADD = 'export const add = (a, b) => a - b;\n';
/** The finding of the scripted evaluator's reject. */
export const FINDING = 'add.js returns a - b: add(2, 3) is -1, not 5';
/** The scripted evaluator's reject after reading the buggy add.js. */
export const REJECT: EvaluatorVerdict = {
  verdict: 'reject',
  findings: [FINDING],
  evidence: ['read add.js'],
};
/** The scripted evaluator's accept. */
export const ACCEPT: EvaluatorVerdict = {
  verdict: 'accept',
  findings: [],
  evidence: ['read add.js: it returns a + b'],
};

/** A judged run's workspace (add.js, buggy) and where its worker records the prompts it read (outside it). */
export interface EvaluatorWorld {
  workspace: string;
  record: string;
}

/** A fresh workspace holding the buggy add.js, and a record file for the worker beside it; both removed after. */
export async function evaluatorWorld(): Promise<EvaluatorWorld> {
  const workspace = await mkdtemp(join(tmpdir(), 'ralph-eval-ws-'));
  onCleanup(() => rm(workspace, { recursive: true, force: true }));
  const records = await mkdtemp(join(tmpdir(), 'ralph-eval-record-'));
  onCleanup(() => rm(records, { recursive: true, force: true }));
  await writeFile(join(workspace, 'add.js'), BUGGY_ADD);
  return { workspace, record: join(records, 'worker.jsonl') };
}

/**
 * `ralph run <OBJECTIVE> --agent-command <add-worker> --max-rounds 2 --json` in the world's workspace, with the
 * evaluator options given (e.g. `--evaluator claude --claude-path …`), in `env` (the agent's scripted HOME).
 */
export function runJudged(
  world: EvaluatorWorld,
  env: NodeJS.ProcessEnv,
  evaluator: string[],
): Promise<Finished> {
  return spawnRalph(
    [
      'run',
      OBJECTIVE,
      '--agent-command',
      agentCommand('add-worker.mjs').join(' '),
      '--cwd',
      world.workspace,
      '--max-rounds',
      '2',
      '--json',
      ...evaluator,
    ],
    { env: { ...env, FIXTURE_RECORD: world.record } },
  ).finished;
}

/** The prompts the worker read, one a round. */
export function workerPrompts(world: EvaluatorWorld): string[] {
  if (!existsSync(world.record)) return [];
  return readFileSync(world.record, 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { prompt: string }).prompt);
}

/**
 * Checks a judged run that ended as scripted: round 1's reject reached round 2's worker as a finding, the worker fixed
 * add.js, and `evaluator` (e.g. 'claude-evaluator') accepted round 2, exit 0.
 */
export async function expectAcceptedInRoundTwo(
  out: Finished,
  world: EvaluatorWorld,
  evaluator: string,
): Promise<void> {
  expect(out.code, out.stderr).toBe(0);
  expect(JSON.parse(out.stdout)).toEqual({
    runId: expect.any(String),
    agentsStarted: 2,
    result: {
      status: 'complete',
      rounds: 2,
      report: expect.objectContaining({ summary: expect.stringContaining('WORKER-CLAIM round 2') }),
      evaluation: {
        evaluator,
        round: 2,
        verdict: 'accept',
        findings: [],
        evidence: ACCEPT.evidence,
        evaluatorsStarted: 2,
      },
    },
  });
  const [, roundTwo] = workerPrompts(world);
  expect(roundTwo).toContain(`Evaluator finding: ${FINDING}`);
  expect(readFileSync(join(world.workspace, 'add.js'), 'utf8')).toContain('a + b');
}

/** Checks a judged run that failed on round 1's reject with no findings: the malformed-verdict failure, exit 1. */
export function expectMalformedReject(out: Finished): void {
  const problem = 'findings: a reject verdict must name a finding';
  expect(out.code).toBe(1);
  expect(out.stderr).toContain(workflowFailed(verdictMalformed(1, problem)));
  expect(JSON.parse(out.stdout).error).toMatchObject({ code: 'workflow-failed', round: 1, detail: problem });
}
