import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { batchScene } from '../support/batch-scene.js';
import { gitIn, tempFolder } from '../support/git-repo.js';
import {
  AGENT_COMMAND,
  killedAfterTest,
  ralph,
  startWorker,
  stopWorker,
  submitRun,
  useFleetScene,
  waitFor,
} from './harness.js';

// Issue 31, item 5: `ralph submit --evaluator`. On the fleet the evaluator is an agent like any other: it is stored
// in the run's input, a worker runs it only if it offers it, and its child is a step of the run's workflow as a
// round's is, so a run taken over while evaluating evaluates again.

const scene = useFleetScene();
const JUDGE = quote([
  process.execPath,
  fileURLToPath(new URL('./fixtures/round-judge.mjs', import.meta.url)),
]);
const batchFixture = (name: string) =>
  quote([process.execPath, fileURLToPath(new URL(`../fixtures/batch-agents/${name}`, import.meta.url))]);
/** A database no test reaches: what `ralph submit` refuses is refused before it is asked. */
const NO_DATABASE = 'postgres://ralph@127.0.0.1:1/none';

/** The judge's log (outside the workspace, which an evaluator must not change), and the workers' env for it. */
function judgeLog(extra: NodeJS.ProcessEnv = {}) {
  const side = tempFolder('ralph-fleet-judge-');
  const log = join(side, 'judge.log');
  const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
  // The workers' own temp folder: no other ralph process's sweep kills their children in their place.
  return { side, lines, env: { FLEET_JUDGE_LOG: log, TMPDIR: side, ...extra } };
}

describe('ralph submit --evaluator on a fleet', () => {
  it('an evaluator command that rejects once then accepts: the run completes with its evaluation; the evaluations are no rounds', async () => {
    const url = scene.databaseFor('evaluated');
    const ws = await scene.workspace();
    const judge = judgeLog({ FLEET_AGENT_ROUNDS: '1' });
    const worker = killedAfterTest(scene, await startWorker(url, 'judging', { env: judge.env }));
    const submitted = await submitRun(url, ws.dir, {
      extra: ['--evaluator-command', JUDGE, '--max-rounds', '3'],
    });
    expect(submitted.code, submitted.stderr).toBe(0);
    const id = submitted.stdout.trim();

    const waited = await ralph(['wait', id, '--json', '--database-url', url]);
    expect(waited.code, waited.stderr).toBe(0);
    const envelope = JSON.parse(waited.stdout);
    expect(envelope).toMatchObject({
      runId: id,
      agentsStarted: 2,
      result: {
        status: 'complete',
        rounds: 2,
        evaluation: {
          evaluator: 'command-evaluator',
          round: 2,
          verdict: 'accept',
          findings: [],
          evidence: ['round 2 checked in the workspace'],
          evaluatorsStarted: 2,
        },
      },
    });
    // Each round's completion was judged once.
    expect(judge.lines().filter((line) => line.startsWith('judge '))).toEqual([
      expect.stringMatching(/^judge reject 1 \d+$/),
      expect.stringMatching(/^judge accept 2 \d+$/),
    ]);
    expect(judge.lines().filter((line) => line.startsWith('judge-start'))).toHaveLength(2);
    // Its evaluations are steps of their own: ralph status counts the two rounds only.
    const status = await ralph(['status', id, '--database-url', url]);
    expect(status.stdout).toMatch(new RegExp(`^${id} complete on judging, 2 rounds done`));
    await stopWorker(worker);
  }, 90_000);

  it('a worker that does not offer the evaluator ends the run refused, starting nothing', async () => {
    const url = scene.databaseFor('unoffered');
    const ws = await scene.workspace();
    const commands = killedAfterTest(scene, await startWorker(url, 'commands-only'));
    const preset = await submitRun(url, ws.dir, { extra: ['--evaluator', 'codex'] });
    const waited = await ralph(['wait', preset.stdout.trim(), '--database-url', url]);
    expect(waited.code).toBe(2);
    expect(waited.stderr).toContain(
      'ralph fleet: this worker does not run the evaluator "codex"; it offers --agent-command runs. Nothing was started\n',
    );
    expect(ws.log()).toEqual([]);
    await stopWorker(commands);

    // An evaluator command needs the allowance an agent command does.
    const picky = killedAfterTest(
      scene,
      await startWorker(url, 'presets-only', { offer: ['--agent', 'claude'] }),
    );
    const submitted = await ralph([
      'submit',
      'Look around',
      '--agent',
      'claude',
      '--evaluator-command',
      JUDGE,
      '--cwd',
      ws.dir,
      '--database-url',
      url,
    ]);
    const command = await ralph(['wait', submitted.stdout.trim(), '--database-url', url]);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain(
      'ralph fleet: this worker does not run runs submitted with --evaluator-command; it offers --agent claude. Nothing was started\n',
    );
    await stopWorker(picky);
  }, 90_000);

  it('refused at submit (exit 2), before the database is asked: both evaluator options; a cost budget with an evaluator that does not report cost', async () => {
    const ws = await scene.workspace();
    const both = await submitRun(NO_DATABASE, ws.dir, {
      extra: ['--evaluator', 'codex', '--evaluator-command', JUDGE],
    });
    expect(both.code).toBe(2);
    expect(both.stderr).toBe(
      'ralph: use either --evaluator or --evaluator-command, not both: a run has one evaluator\n',
    );

    const cost = await submitRun(NO_DATABASE, ws.dir, {
      command: `${AGENT_COMMAND}`,
      extra: ['--agent-reports-cost', '--evaluator-command', JUDGE, '--max-cost', '5'],
    });
    expect(cost.code).toBe(2);
    expect(cost.stderr).toContain(
      'Ralph cannot hold the cost limit: evaluator provider "command-evaluator" does not report what its evaluations cost.',
    );
  });

  it('a run whose worker died while evaluating is evaluated again after the takeover; recorded rounds and evaluations are not', async () => {
    const url = scene.databaseFor('evaluating_takeover');
    const ws = await scene.workspace();
    const judge = judgeLog({ FLEET_AGENT_ROUNDS: '1', FLEET_JUDGE_HOLD_ROUND: '2' });
    const hold = join(judge.side, 'hold');
    writeFileSync(hold, '');
    const first = killedAfterTest(
      scene,
      await startWorker(url, 'evaluating', { env: { ...judge.env, FLEET_JUDGE_HOLD: hold } }),
    );
    const submitted = await submitRun(url, ws.dir, {
      extra: ['--evaluator-command', JUDGE, '--max-rounds', '3'],
    });
    const id = submitted.stdout.trim();
    // Round 1's completion rejected, round 2's being evaluated when the worker dies.
    await waitFor(
      () => judge.lines().some((line) => line.startsWith('judge-start 2')),
      "round 2's evaluation",
    );
    first.child.kill('SIGKILL');
    await first.exited;
    rmSync(hold);

    // Restarted under its id, the worker replays rounds 1 and 2 and round 1's evaluation from their steps, and
    // evaluates round 2's completion again with a fresh evaluator.
    const second = killedAfterTest(scene, await startWorker(url, 'evaluating', { env: judge.env }));
    const waited = await ralph(['wait', id, '--json', '--database-url', url]);
    expect(waited.code, waited.stderr).toBe(0);
    const envelope = JSON.parse(waited.stdout);
    expect(envelope.result).toMatchObject({
      status: 'complete',
      rounds: 2,
      evaluation: { verdict: 'accept', round: 2 },
    });
    expect([ws.startsOf(1).length, ws.startsOf(2).length]).toEqual([1, 1]);
    const starts = (round: number) =>
      judge
        .lines()
        .filter((line) => line.startsWith(`judge-start ${round} `))
        .map((line) => line.split(' ')[2]);
    expect(starts(1)).toHaveLength(1);
    expect(starts(2)).toHaveLength(2);
    expect(new Set(starts(2)).size).toBe(2);
    await stopWorker(second);
  }, 90_000);

  it('ralph submit --batch --evaluator-command: a task lands once accepted; a task rejected to its cap does not', async () => {
    const url = scene.databaseFor('evaluated_batch');
    const { repo, tasksFile } = batchScene([
      { id: 'honest', objective: 'write a.txt a\nneed a.txt\nneed b.txt\nfix-findings' },
      { id: 'liar', objective: 'the liar: claims complete, writes nothing\nneed c.txt' },
    ]);
    const side = tempFolder('ralph-fleet-batch-judge-');
    const bare = join(side, 'remote.git');
    gitIn(side, 'clone', '--quiet', '--bare', repo, bare);
    const worker = killedAfterTest(
      scene,
      await startWorker(url, 'batching', {
        env: { TMPDIR: side },
        extra: ['--allow-batch', '--concurrency', '2', '--state-dir', join(side, 'state')],
      }),
    );
    const submitted = await ralph([
      'submit',
      '--batch',
      tasksFile,
      '--repo',
      `file://${bare}`,
      '--into',
      'main',
      '--agent-command',
      batchFixture('edit-agent.mjs'),
      '--evaluator-command',
      batchFixture('need-judge.mjs'),
      '--max-rounds',
      '2',
      '--database-url',
      url,
    ]);
    expect(submitted.code, submitted.stderr).toBe(0);
    const batchId = submitted.stdout.trim();

    const waited = await ralph(['wait', batchId, '--database-url', url]);
    expect(waited.code).toBe(1);
    expect(waited.stdout).toMatch(/^honest: landed: main at [0-9a-f]{40}$/m);
    expect(waited.stdout).toMatch(/^liar: failed: its loop ended budget-limited$/m);
    expect(gitIn(bare, 'show', 'main:a.txt')).toBe('a');
    expect(gitIn(bare, 'show', 'main:b.txt')).toBe('fixed');
    expect(gitIn(bare, 'ls-tree', '--name-only', 'main').split('\n')).not.toContain('c.txt');
    const liar = await ralph(['status', `${batchId}.liar`, '--json', '--database-url', url]);
    expect(JSON.parse(liar.stdout).outcome.envelope.result.evaluation).toMatchObject({
      verdict: 'reject',
      round: 2,
      findings: ['c.txt is missing'],
    });
    await stopWorker(worker);
  }, 120_000);
});
