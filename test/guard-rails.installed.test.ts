import { execFile, spawn } from 'node:child_process';
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
  const ralph = (args: string[]): Promise<Finished> =>
    new Promise((resolve, reject) => {
      const child = spawn(bin, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
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
