import { readdirSync } from 'node:fs';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { EVALUATOR_CONFLICT } from '../../src/hosts/cli/evaluator-options.js';
import {
  evaluatorLacksCostReports,
  evaluatorTimedOut,
  type RalphEnvelope,
  unevaluatedRoundLine,
  WORKFLOW_CANCELLED,
} from '../../src/index.js';
import { waitUntil } from '../fixtures/cli-agents/harness.js';
import {
  judgeCommand,
  judgedArgs,
  OBJECTIVE,
  useEvaluatorScene,
  workerCommand,
} from '../fixtures/evaluators/harness.js';
import { isRunning } from '../support/processes.js';

const scene = useEvaluatorScene();
const addJsExists = quote([
  process.execPath,
  '-e',
  "process.exit(require('node:fs').existsSync('add.js') ? 0 : 1)",
]);

/** Waits until the scripted evaluator is running (it logged what it saw), and returns its pid. */
const evaluatorRunning = () => waitUntil(() => scene.judges()[0]?.pid, 'the evaluator to start');

describe('ralph run --verify with --evaluator-command: the verify command first, the evaluator only after exit 0', () => {
  it('starts no evaluator while the verify command fails', async () => {
    const out = await scene.run(
      judgedArgs('liar', ['needs', 'add.js'], '--verify', addJsExists, '--max-rounds', '2'),
    );

    expect(out.code).toBe(4);
    expect(out.stderr).toContain('ralph: round 2/2 verify');
    expect(out.stderr).not.toContain('evaluator');
    expect(scene.judges()).toEqual([]);
  });

  it('starts the evaluator once the verify command passed, and the label names both', async () => {
    const out = await scene.run(
      judgedArgs('honest', ['needs', 'add.js'], '--verify', addJsExists, '--max-rounds', '2'),
    );

    expect(out.code).toBe(0);
    const lines = out.stderr.split('\n');
    const verified = lines.findIndex((line) => line.endsWith('completion verified'));
    const evaluating = lines.findIndex((line) => line.includes('evaluator command-evaluator checking'));
    expect(verified).toBeGreaterThan(0);
    expect(evaluating).toBe(verified + 1);
    expect(out.stdout.split('\n')[0]).toMatch(
      /^Ralph complete: the worker reported the objective complete after 1 round, the verify command `.*` confirmed it \(exit 0\), and an independent evaluator \(command-evaluator\) accepted it\.$/,
    );
    expect(scene.judges()).toHaveLength(1);
  });
});

describe('ralph run --evaluator-command: the guard rails stop an evaluator as they stop a round', () => {
  it('--round-timeout stops a hanging evaluator: exit 1, and no process is left', async () => {
    const out = await scene.run(judgedArgs('liar', ['hang'], '--round-timeout', '6s', '--max-rounds', '2'));

    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`Ralph workflow failed: ${evaluatorTimedOut(1, '6s')}`);
    const [judge] = scene.judges();
    expect(judge).toBeDefined();
    expect(isRunning(judge?.pid as number)).toBe(false);
    expect(readdirSync(scene.tmp)).toEqual([]);
  });

  it('--max-time running out during the evaluation ends the run budget-limited (exit 4) with the unevaluated round', async () => {
    const out = await scene.run(judgedArgs('liar', ['hang'], '--max-time', '6s', '--max-rounds', '2'));

    expect(out.code).toBe(4);
    expect(out.stdout).toContain(`${unevaluatedRoundLine(1)}\n`);
    expect(out.stderr).toContain('ralph: the 6s time limit (--max-time) ran out; no round starts after it');
    expect(isRunning(scene.judges()[0]?.pid as number)).toBe(false);
  });

  it('--max-time in --json: the limit names the round whose completion was not evaluated', async () => {
    const out = await scene.run(
      judgedArgs('liar', ['hang'], '--max-time', '6s', '--max-rounds', '2', '--json'),
    );

    expect(out.code).toBe(4);
    const envelope = JSON.parse(out.stdout) as RalphEnvelope;
    expect(envelope.result).toMatchObject({
      status: 'budget-limited',
      rounds: 1,
      limit: { kind: 'time', maxWallTimeMs: 6000, unevaluatedRound: 1 },
    });
    // No verdict was given, so there is none to carry.
    expect(envelope.result.evaluation).toBeUndefined();
  });

  it('Ctrl-C during the evaluation waits for the evaluator to stop: exit 130, no process and no round folder left', async () => {
    const { child, finished } = scene.spawn(judgedArgs('liar', ['hang'], '--max-rounds', '2'));
    const pid = await evaluatorRunning();

    child.kill('SIGINT');
    const out = await finished;

    expect(out.code).toBe(130);
    expect(out.stderr).toContain('cancelling: waiting for the child agent to stop');
    expect(out.stderr.trimEnd().split('\n').at(-1)).toBe(WORKFLOW_CANCELLED);
    expect(out.stdout).toBe('');
    // The run settled only once its evaluator had exited.
    expect(isRunning(pid)).toBe(false);
    expect(readdirSync(scene.tmp)).toEqual([]);
  });
});

describe('ralph run --evaluator-reports-cost: the evaluations count toward --max-cost', () => {
  it('ends the run budget-limited once the rounds and the evaluations together spent the budget', async () => {
    // $0.10 a round and $0.60 an evaluation against $1: round 1 and its evaluation spend $0.70, round 2 and its
    // evaluation $1.40, so no round 3 starts. Counting the rounds alone ($0.20) would run all 5 rounds.
    const out = await scene.run(
      judgedArgs(
        'liar',
        ['needs', 'add.js'],
        '--max-rounds',
        '5',
        '--json',
        '--agent-reports-cost',
        '--evaluator-reports-cost',
        '--max-cost',
        '1',
      ),
      { FIXTURE_WORKER_COST_USD: '0.10', FIXTURE_EVALUATOR_COST_USD: '0.60' },
    );

    expect(out.code).toBe(4);
    const envelope = JSON.parse(out.stdout) as RalphEnvelope;
    expect(envelope.result).toMatchObject({
      status: 'budget-limited',
      rounds: 2,
      limit: { kind: 'cost', maxCostUsd: 1 },
    });
    expect(scene.workers()).toHaveLength(2);
    expect(scene.judges()).toHaveLength(2);
  });
});

describe('ralph run refuses bad evaluator options before anything starts (exit 2)', () => {
  const worker = ['run', OBJECTIVE, '--agent-command', workerCommand('honest'), '--max-rounds', '2'];

  it.each([
    [
      'both --evaluator and --evaluator-command',
      ['--evaluator', 'claude', '--evaluator-command', judgeCommand('needs', 'add.js')],
      EVALUATOR_CONFLICT,
    ],
    [
      '--evaluator claude with a --claude-path that does not exist',
      ['--evaluator', 'claude', '--claude-path', '/nonexistent/claude'],
      'ralph: --claude-path /nonexistent/claude was not found (/nonexistent/claude); pass --claude-path <the claude program>, or leave it out to use claude on PATH',
    ],
    [
      'an --evaluator-command whose program is not on PATH',
      ['--evaluator-command', 'no-such-judge --strict'],
      `ralph: the --evaluator-command program "no-such-judge" was not found on PATH; install it, put it on PATH, or give its path (e.g. --evaluator-command './no-such-judge')`,
    ],
    [
      '--max-cost with an evaluator command that does not report cost',
      ['--agent-reports-cost', '--max-cost', '1', '--evaluator-command', judgeCommand('needs', 'add.js')],
      evaluatorLacksCostReports('command-evaluator'),
    ],
  ])('%s', async (_, extra, message) => {
    const out = await scene.run([...worker, ...extra]);

    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(message);
    expect(scene.workers()).toEqual([]);
    expect(scene.judges()).toEqual([]);
  });
});
