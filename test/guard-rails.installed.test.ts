import { execFile, spawn } from 'node:child_process';
import { existsSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { quote } from 'shell-quote';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type Finished,
  makeWorkspace,
  PLAN_AGENT_COMMAND,
  type PlanStep,
  type Workspace,
  waitUntil,
  waitUntilGone,
} from './fixtures/cli-agents/harness.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/cli-agents/${name}`, import.meta.url));

/** The guard-rail test agent in `mode` (see guard-agent.mjs), as an `--agent-command`. */
const guardAgent = (...args: string[]) => quote([process.execPath, fixture('guard-agent.mjs'), ...args]);

// Each guard rail through the binary a user installs: the package packed once for this file, installed into an empty
// folder, and run as `ralph` with real agents, a real verify command and real workspaces.
describe('the guard rails of the installed ralph', () => {
  let dir = '';
  let bin = '';
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'ralph-guard-pack-')));
    await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: root });
    const tarball = (await readdir(dir)).find((name) => name.endsWith('.tgz'));
    if (tarball === undefined) throw new Error('npm pack wrote no tarball');
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', `./${tarball}`], {
      cwd: dir,
    });
    bin = join(dir, 'node_modules', '.bin', 'ralph');
  }, 240_000);

  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Runs the installed `ralph` to its end; stdio piped, so its progress comes as plain lines. */
  const ralph = (args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Finished> =>
    new Promise((resolve, reject) => {
      const child = spawn(bin, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    });

  const planWorkspace = async (plan: PlanStep[]): Promise<Workspace> => {
    const ws = await makeWorkspace(plan);
    cleanups.push(ws.cleanup);
    return ws;
  };
  const emptyFolder = async (prefix: string): Promise<string> => {
    const folder = await mkdtemp(join(tmpdir(), prefix));
    cleanups.push(() => rm(folder, { recursive: true, force: true }));
    return folder;
  };

  it('--round-timeout stops a hanging child and its whole group, and fails the run as that round', async () => {
    // The agent ignores SIGTERM and keeps a grandchild in its group: only SIGKILL of the group ends them.
    const ws = await planWorkspace(['stubborn']);
    const end = await ralph([
      'run',
      'Tick the box',
      '--agent-command',
      PLAN_AGENT_COMMAND,
      '--cwd',
      ws.dir,
      '--round-timeout',
      '5s',
      '--grace-ms',
      '200',
    ]);
    expect(end.code).toBe(1);
    expect(end.stdout).toBe('');
    expect(end.stderr).toContain(
      'Ralph round 1 child failed before producing a structured report.\nNo previous handoff was available.\n' +
        'round 1 timed out: its child did not report within the round timeout of 5s and was stopped\n',
    );
    expect(end.stderr).toContain(
      'ralph: round 1/256 timed out after 5s (--round-timeout); stopping its agent',
    );
    const agent = ws.pidOf(1);
    const grandchild = ws.grandchildPidOf(1);
    if (agent === undefined || grandchild === undefined) throw new Error('the agent never set up its round');
    await waitUntilGone(agent);
    await waitUntilGone(grandchild);
  });

  it('--max-time stops the loop in the middle of a round: budget-limited with the last good report', async () => {
    const ws = await planWorkspace(['continue', 'hang']);
    const end = await ralph([
      'run',
      'Tick the box',
      '--agent-command',
      PLAN_AGENT_COMMAND,
      '--cwd',
      ws.dir,
      '--max-time',
      '6s',
      '--grace-ms',
      '200',
      '--json',
    ]);
    expect(end.code).toBe(4);
    const envelope = JSON.parse(end.stdout);
    expect(envelope.result).toEqual({
      status: 'budget-limited',
      rounds: 2,
      report: {
        status: 'continue',
        summary: 'round 1 made progress',
        evidence: [],
        nextSteps: ['keep going'],
        blocker: null,
      },
      limit: { kind: 'time', maxWallTimeMs: 6_000, unfinishedRound: 2 },
    });
    expect(end.stderr).toContain('ralph: round 2/256 started\nralph: the 6s time limit (--max-time) ran out');
    const hanging = ws.pidOf(2);
    if (hanging === undefined) throw new Error('round 2 never started its agent');
    await waitUntilGone(hanging);
  });

  it('--verify turns down a completion the command fails, hands the failure on, and accepts it once it passes', async () => {
    const workspace = await emptyFolder('ralph-guard-verify-');
    const prompts = await emptyFolder('ralph-guard-prompts-');
    const check = quote([process.execPath, fixture('check-fixed.mjs')]);
    const end = await ralph([
      'run',
      'Write fixed.txt',
      '--agent-command',
      guardAgent('premature', prompts),
      '--cwd',
      workspace,
      '--verify',
      check,
    ]);
    expect(end.code).toBe(0);
    expect(end.stdout.split('\n')[0]).toBe(
      `Ralph complete: the worker reported the objective complete after 2 rounds, and the verify command \`${check}\` confirmed it (exit 0).`,
    );
    expect(end.stdout).not.toContain('worker reports, not independent evaluation');
    expect(end.stderr).toMatch(/round 1\/256 verify .* exited 1 after .*: completion not accepted/);
    expect(end.stderr).toMatch(/round 2\/256 verify .* exited 0 after .*: completion verified/);
    // Round 2 was told why round 1's completion was not accepted: the command, its status and its output's end.
    const second = await readFile(join(prompts, 'round-2.txt'), 'utf8');
    expect(second).toContain('the completion was not accepted: the verify command');
    expect(second).toContain('exited with status 1');
    expect(second).toContain('FAIL: fixed.txt is missing');
  });

  it('--max-idle-rounds 3 ends a loop whose rounds change nothing after the third', async () => {
    const workspace = await emptyFolder('ralph-guard-idle-');
    await writeFile(join(workspace, 'notes.txt'), 'nothing to do here\n');
    const end = await ralph([
      'run',
      'Wait for something to happen',
      '--agent-command',
      guardAgent('idle'),
      '--cwd',
      workspace,
      '--max-idle-rounds',
      '3',
    ]);
    expect(end.code).toBe(4);
    expect(end.stdout.split('\n').slice(0, 2)).toEqual([
      'Ralph reached its 3 idle rounds limit; the worker reported work remaining, but the workspace did not change in the last 3 rounds.',
      'Rounds: 3',
    ]);
    expect(end.stderr).toContain(
      'ralph: round 3/256 left the workspace unchanged (3 of 3 idle rounds allowed in a row)',
    );
  });

  it("idle detection with a recording and logs in the workspace: ralph's own files are no change, 2 idle rounds end it", async () => {
    const workspace = await emptyFolder('ralph-guard-idle-own-');
    // Run from the workspace, as the example of docs/cli.md is: `ralph run … --record run.jsonl > ralph.log 2> ralph.err`.
    const child = spawn(
      bin,
      [
        'run',
        'Wait for something to happen',
        '--agent-command',
        guardAgent('idle'),
        '--record',
        'run.jsonl',
      ].concat(['--max-idle-rounds', '2', '--max-rounds', '20']),
      {
        cwd: workspace,
        stdio: [
          'ignore',
          openSync(join(workspace, 'ralph.log'), 'w'),
          openSync(join(workspace, 'ralph.err'), 'w'),
        ],
      },
    );
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    expect(code).toBe(4);
    expect(readFileSync(join(workspace, 'ralph.log'), 'utf8').split('\n').slice(0, 2)).toEqual([
      'Ralph reached its 2 idle rounds limit; the worker reported work remaining, but the workspace did not change in the last 2 rounds.',
      'Rounds: 2',
    ]);
  });

  it('a cost-limited run across a crash and resume: the budget goes on from what the recording holds', async () => {
    const workspace = await emptyFolder('ralph-guard-cost-resume-');
    const file = join(workspace, 'run.jsonl');
    const env = { ...process.env, ROUND_COST: '0.4', RALPH_DEPTH: '' };
    const agent = quote([process.execPath, fixture('resumable-agent.mjs')]);
    const host = spawn(
      bin,
      ['run', 'Count to five', '--agent-command', agent, '--agent-reports-cost', '--max-cost', '1'].concat([
        '--max-rounds',
        '6',
        '--cwd',
        workspace,
        '--record',
        file,
      ]),
      { cwd: dir, env, stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => host.on('close', resolve));
    // Round 3's agent hangs once it is up and recorded as started: the host is killed with SIGKILL right then.
    const hung = await waitUntil(
      () =>
        existsSync(join(workspace, 'hung.pid')) && Number(readFileSync(join(workspace, 'hung.pid'), 'utf8')),
      'round 3 to hang',
    );
    await waitUntil(() => readFileSync(file, 'utf8').includes('"agentsStarted":3'), 'round 3 recorded');
    host.kill('SIGKILL');
    await exited;
    cleanups.push(async () => {
      if (existsSync(`/proc/${hung}`)) process.kill(hung, 'SIGKILL');
    });

    const resumed = await ralph(['resume', file, '--trust-recording'], env);
    expect(resumed.code, resumed.stderr).toBe(4);
    expect(resumed.stdout.split('\n').slice(0, 3)).toEqual([
      'Ralph reached its $1.00 cost limit ($1.20 spent); the worker reported work remaining.',
      "Not counted: what round 3 spent before the run's host stopped; it is unknown (the round was run again).",
      'Rounds: 3',
    ]);
    const json = await ralph(['replay', file, '--json'], env);
    expect(JSON.parse(json.stdout).result.limit).toEqual({
      kind: 'cost',
      maxCostUsd: 1,
      spentUsd: 1.2,
      uncountedRounds: [3],
    });
  });

  it('without a guard rail the same idle agent runs to the round cap, as the reference does', async () => {
    const workspace = await emptyFolder('ralph-guard-off-');
    const end = await ralph([
      'run',
      'Wait for something to happen',
      '--agent-command',
      guardAgent('idle'),
      '--cwd',
      workspace,
      '--max-rounds',
      '4',
    ]);
    expect(end.code).toBe(4);
    expect(end.stdout.split('\n')[0]).toBe(
      'Ralph reached its 4 rounds limit; the worker reported work remaining.',
    );
    expect(end.stderr).not.toContain('unchanged');
  });
});
