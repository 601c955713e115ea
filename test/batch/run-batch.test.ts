import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, test } from 'vitest';
import {
  type BatchProgressEvent,
  isRalphError,
  resumeBatch,
  rollbackBatch,
  runBatch,
} from '../../src/index.js';
import { isGone, waitUntil, waitUntilGone } from '../fixtures/cli-agents/harness.js';
import { extraWorktrees, taskCommitsOn } from '../support/batch-repo.js';
import { batchScene } from '../support/batch-scene.js';
import { gitIn, tempFolder } from '../support/git-repo.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/batch-agents/${name}`, import.meta.url));
const AGENT = quote([process.execPath, fixture('edit-agent.mjs')]);

/** The fake agents log their starts and ends to BATCH_AGENT_LOG, which they read from this process's environment. */
const logged = process.env.BATCH_AGENT_LOG;
afterEach(() => {
  if (logged === undefined) delete process.env.BATCH_AGENT_LOG;
  else process.env.BATCH_AGENT_LOG = logged;
});

/** A repository (`files` committed) with the fake agents' log set for this process's batches. */
function scene(files?: Record<string, string>) {
  const { repo, env, agentLines } = batchScene([], files);
  process.env.BATCH_AGENT_LOG = env.BATCH_AGENT_LOG;
  const pidsOf = (kind: string) =>
    agentLines()
      .filter((line) => line.startsWith(kind))
      .map((line) => Number(line.split(' ')[1]));
  /** The agents that started and did not end. */
  const alive = () => pidsOf('start').filter((pid) => !pidsOf('end').includes(pid));
  return { repo, env, pidsOf, alive };
}

/** The branches of the repository, one a line. */
const branches = (repo: string): string => gitIn(repo, 'branch', '--format=%(refname:short)');

describe('runBatch', () => {
  test('a batch of four tasks, two of which conflict: three land through the merge queue, the other needs review', async () => {
    const { repo } = scene({ 'shared.txt': 'base\n' });
    const events: BatchProgressEvent[] = [];
    const outcome = await runBatch({
      tasks: [
        { id: 'left', objective: 'write shared.txt left' },
        { id: 'right', objective: 'write shared.txt right' },
        { id: 'docs', objective: 'write docs.txt docs' },
        { id: 'notes', objective: 'write notes.txt notes', after: ['docs'] },
      ],
      cwd: repo,
      agentCommand: AGENT,
      parallel: 2,
      onProgress: (event) => events.push(event),
    });
    expect(outcome.cancelReason).toBeNull();
    const byId = new Map(outcome.tasks.map((task) => [task.id, task]));
    expect(byId.get('docs')?.status).toBe('landed');
    expect(byId.get('notes')?.status).toBe('landed');
    // Whichever of left and right reached the merge queue second conflicts with the first on shared.txt.
    const sides = [byId.get('left'), byId.get('right')];
    const review = sides.find((task) => task?.status === 'needs-review');
    const landed = sides.find((task) => task?.status === 'landed');
    expect(review?.conflicts).toEqual(['shared.txt']);
    expect(review?.note).toContain('conflict in shared.txt');
    expect(landed).toBeDefined();
    for (const task of outcome.tasks.filter((each) => each.status === 'landed')) {
      expect(task.commit).toMatch(/^[0-9a-f]{40}$/);
      gitIn(repo, 'merge-base', '--is-ancestor', task.commit as string, outcome.target);
      expect(taskCommitsOn(repo, outcome.target, task.id)).toBe(1);
    }
    expect(gitIn(repo, 'show', `${outcome.target}:notes.txt`)).toBe('notes');
    // The task that needs review keeps its branch (and worktree) for a person; the user's checkout never moved.
    expect(branches(repo)).toContain(review?.branch as string);
    expect(gitIn(repo, 'branch', '--show-current')).not.toBe(outcome.target);
    expect(existsSync(outcome.recording)).toBe(true);
    expect(outcome.recording).toContain(outcome.batchId);
    // Each task's status changes came as they happened, the last of each its end.
    for (const task of outcome.tasks) {
      const changes = events.filter((event) => event.type === 'task' && event.taskId === task.id);
      expect(changes.at(-1)).toMatchObject({ status: task.status, branch: task.branch });
    }
    expect(events).toContainEqual({ type: 'line', text: expect.stringMatching(/^batch \S+: 4 task\(s\)/) });
    // Rolled back, the target is on the batch's start again.
    const start = gitIn(repo, 'rev-parse', 'HEAD');
    const back = await rollbackBatch({ batchId: outcome.batchId, cwd: repo });
    expect(back).toMatchObject({ target: outcome.target, to: start });
    expect(gitIn(repo, 'rev-parse', outcome.target)).toBe(start);
  }, 60_000);

  test('with resolveConflicts and verify, the conflicting task is resolved by a resolver loop and lands', async () => {
    const { repo } = scene({ 'shared.txt': 'base\n' });
    const outcome = await runBatch({
      tasks: [
        { id: 'left', objective: 'write shared.txt left' },
        { id: 'right', objective: 'write shared.txt right' },
      ],
      cwd: repo,
      agentCommand: AGENT,
      verify: quote([process.execPath, fixture('both-files-check.mjs')]),
      resolveConflicts: true,
    });
    expect(outcome.tasks.map((task) => task.status)).toEqual(['landed', 'landed']);
    expect(gitIn(repo, 'show', `${outcome.target}:shared.txt`).split('\n').sort()).toEqual(['left', 'right']);
    expect(extraWorktrees(repo)).toEqual([]);
  }, 60_000);

  test('refusals throw the command line’s words and start nothing', async () => {
    const { repo, pidsOf } = scene();
    const before = branches(repo);
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => expect.unreachable('refused'),
        (error: unknown) => {
          expect(isRalphError(error) && error.code).toBe('refused');
          return (error as Error).message;
        },
      );
    const tasks = [{ id: 'a', objective: 'write a.txt a' }];
    expect(await refusal(runBatch({ tasks, cwd: repo, agentCommand: AGENT, parallel: 0 }))).toBe(
      '--parallel must be a whole number from 1 to 64 (got "0")',
    );
    expect(await refusal(runBatch({ tasks, cwd: repo, agentCommand: AGENT, resolveConflicts: true }))).toBe(
      '--resolve-conflicts needs --verify: a resolved merge lands only when the verify command passes on it',
    );
    expect(await refusal(runBatch({ tasks, cwd: repo }))).toContain('ralph needs an agent for its rounds');
    expect(
      await refusal(runBatch({ tasks: [...tasks, ...tasks], cwd: repo, agentCommand: AGENT })),
    ).toContain('two tasks have the id "a"');
    expect(await refusal(rollbackBatch({ batchId: '../x', cwd: repo }))).toContain(
      'ralph batch --rollback "../x" is refused: the batch id',
    );
    expect(branches(repo)).toBe(before);
    expect(pidsOf('start')).toEqual([]);
  });

  test('an aborted signal cancels every loop; the batch resolves once the agents stopped, its reason given', async () => {
    const { repo, alive } = scene();
    const controller = new AbortController();
    const running = runBatch({
      tasks: [
        { id: 'a', objective: 'write a.txt a\nhang' },
        { id: 'b', objective: 'write b.txt b\nhang' },
      ],
      cwd: repo,
      agentCommand: AGENT,
      graceMs: 200,
      signal: controller.signal,
    });
    const agents = await waitUntil(() => alive().length === 2 && alive(), 'both agents to start');
    controller.abort();
    const outcome = await running;
    expect(outcome.cancelReason).toBe('interrupted');
    expect(outcome.tasks.map((task) => task.status)).toEqual(['cancelled', 'cancelled']);
    for (const pid of agents) expect(isGone(pid)).toBe(true);
    // What the cancelled agents wrote is committed on their branches; their worktrees are gone.
    expect(gitIn(repo, 'show', `${outcome.tasks[0]?.branch}:a.txt`)).toBe('a');
    expect(extraWorktrees(repo)).toEqual([]);
  }, 60_000);
});

describe('resumeBatch', () => {
  test('a batch process SIGKILLed mid-batch goes on from its recording: landed tasks stay landed, every task lands once', async () => {
    const { repo, env, alive } = scene();
    const marker = join(tempFolder('ralph-batch-marker-'), 'hold');
    writeFileSync(marker, '');
    const tasks = [
      { id: 'a', objective: 'write a.txt a' },
      { id: 'b', objective: `write b.txt b\nhang-while ${marker}` },
      { id: 'c', objective: `write c.txt c\nhang-while ${marker}` },
    ];
    const optionsFile = join(tempFolder('ralph-batch-options-'), 'options.json');
    writeFileSync(optionsFile, JSON.stringify({ tasks, cwd: repo, agentCommand: AGENT, parallel: 3 }));
    const child = spawn(process.execPath, [fixture('library-batch.mjs'), optionsFile], {
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    const events = () =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as BatchProgressEvent);
    await waitUntil(
      () =>
        events().some(
          (event) => event.type === 'task' && event.taskId === 'a' && event.status === 'landed',
        ) && alive().length === 2,
      'a to land and b and c to hang',
    );
    const orphans = alive();
    child.kill('SIGKILL');
    await exited;
    // The killed batch's agents are still there: the resume is what stops them.
    for (const pid of orphans) expect(isGone(pid)).toBe(false);
    rmSync(marker);
    const opened = events().find((event) => event.type === 'line' && /^batch \S+: 3 task/.test(event.text));
    const batchId = /^batch (\S+):/.exec(opened?.type === 'line' ? opened.text : '')?.[1] as string;
    const recording = join(repo, '.git', 'ralph', 'batches', batchId, 'batch.jsonl');
    const lines: string[] = [];
    const outcome = await resumeBatch({
      recording,
      cwd: repo,
      agentCommand: AGENT,
      onProgress: (event) => {
        if (event.type === 'line') lines.push(event.text);
      },
    });
    expect(lines).toContain(`resuming batch ${batchId}: 1 of 3 task(s) settled already`);
    expect(outcome.batchId).toBe(batchId);
    expect(outcome.cancelReason).toBeNull();
    expect(outcome.tasks.map((task) => [task.id, task.status])).toEqual([
      ['a', 'landed'],
      ['b', 'landed'],
      ['c', 'landed'],
    ]);
    for (const pid of orphans) await waitUntilGone(pid);
    for (const task of ['a', 'b', 'c']) expect(taskCommitsOn(repo, outcome.target, task)).toBe(1);
    expect(extraWorktrees(repo)).toEqual([]);
    expect(readFileSync(recording, 'utf8')).toContain('"settled"');
  }, 60_000);
});
