import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';
import { isRunning } from '../support/processes.js';

/** The built CLI. */
export const CLI = fileURLToPath(new URL('../../dist/hosts/cli/main.js', import.meta.url));

/** The counting agent, as `--agent-command` takes it. */
export const AGENT_COMMAND = `${process.execPath} ${fileURLToPath(new URL('./fixtures/counting-agent.mjs', import.meta.url))}`;

/** Polls `condition` until it returns a value other than undefined/false (the deadline only fails a broken test). */
export async function waitFor<T>(
  condition: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A workspace of the counting agent. */
export interface AgentWorkspace {
  dir: string;
  /** rounds.log, line by line. */
  log(): string[];
  /** The pids of the agents that started `round`, in order. */
  startsOf(round: number): number[];
  /** The pid of the agent holding in `round` now (its hold file), newest first. */
  holders(round: number): number[];
  release(): Promise<void>;
  cleanup(): Promise<void>;
}

/** A fresh workspace folder. */
export async function agentWorkspace(): Promise<AgentWorkspace> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-fleet-ws-'));
  const log = () => {
    try {
      return readFileSync(join(dir, 'rounds.log'), 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  };
  return {
    dir,
    log,
    startsOf: (round) =>
      log()
        .map((line) => line.split(' '))
        .filter(([kind, r]) => kind === 'start' && Number(r) === round)
        .map(([, , pid]) => Number(pid)),
    holders: (round) =>
      readdirSync(dir)
        .filter((name) => name.startsWith(`hold-${round}.`))
        .map((name) => Number(name.slice(`hold-${round}.`.length))),
    release: () => writeFile(join(dir, 'release'), ''),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A spawned `ralph` process with its output collected. */
export interface RalphProcess {
  child: ChildProcess;
  pid: number;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or 128 + signal number's name as null code). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `node dist/hosts/cli/main.js <args>`. */
export function spawnRalph(args: string[], env: NodeJS.ProcessEnv = {}): RalphProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    err += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  return { child, pid: child.pid as number, stdout: () => out, stderr: () => err, exited };
}

/** The arguments of `ralph submit` of a counting agent's run in `dir`. */
export function submitArgs(
  url: string,
  dir: string,
  objective = 'Count to five',
  ...extra: string[]
): string[] {
  return [
    'submit',
    objective,
    '--database-url',
    url,
    '--agent-command',
    AGENT_COMMAND,
    '--cwd',
    dir,
    ...extra,
  ];
}

/** Runs `ralph <args>` to its end. */
export async function ralph(args: string[], env: NodeJS.ProcessEnv = {}) {
  const spawned = spawnRalph(args, env);
  const { code } = await spawned.exited;
  return { code, stdout: spawned.stdout(), stderr: spawned.stderr() };
}

/** `ralph submit`s a run of `command` (default: the counting agent) working in `cwd`. */
export function submitRun(
  url: string,
  cwd: string,
  { objective = 'Count to five', command = AGENT_COMMAND, extra = [] as string[] } = {},
) {
  return ralph([
    'submit',
    objective,
    '--database-url',
    url,
    '--agent-command',
    command,
    '--cwd',
    cwd,
    ...extra,
  ]);
}

/** Starts `ralph worker` (offering --agent-command runs unless `offer` says otherwise); waits until it takes runs. */
export async function startWorker(
  databaseUrl: string,
  workerId: string,
  { lease = '2s', env = {}, extra = [] as string[], offer = ['--allow-agent-command'] } = {},
): Promise<RalphProcess> {
  // What the worker offers: by default --agent-command runs (the counting agent's), which a worker runs only if allowed.
  const worker = spawnRalph(
    ['worker', '--database-url', databaseUrl, '--worker-id', workerId, '--lease', lease, ...offer, ...extra],
    env,
  );
  await waitFor(
    () => worker.stderr().includes('taking runs') || worker.child.exitCode !== null,
    `worker ${workerId} to start`,
  );
  if (worker.child.exitCode !== null) throw new Error(`worker ${workerId} exited: ${worker.stderr()}`);
  return worker;
}

/** SIGTERMs a worker (if it still runs) and waits for its exit. */
export async function stopWorker(worker: RalphProcess): Promise<void> {
  if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGTERM');
  await worker.exited;
}

/** Waits until none of `pids` runs. */
export function waitAllGone(pids: number[], what: string): Promise<true> {
  return waitFor(() => pids.every((pid) => !isRunning(pid)), what);
}

/** The pid of the reaper a worker started (its child marked ralph-fleet-reaper), if it runs. */
export function reaperOf(workerPid: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === workerPid && cmdline.includes('ralph-fleet-reaper')) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** Every line a process wrote that says the database failed it (at start: a set-up raced, DBOS not launched). */
export function databaseFailures(process: RalphProcess): string[] {
  return process
    .stderr()
    .split('\n')
    .filter((line) =>
      /database failed|could not start|tuple concurrently|deadlock|does not exist/.test(line),
    );
}

/** SIGKILLs every agent a workspace's log names that still runs (the cleanup after a failed test). */
export function killAgents(ws: AgentWorkspace): void {
  for (const line of ws.log()) {
    const pid = Number(line.split(' ')[2]);
    if (!isRunning(pid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

export { isRunning };

/** What a fleet test file shares: one Postgres server, and everything its tests start, cleaned up after them. */
export interface FleetScene {
  /** The file's Postgres server (started before its first test). */
  readonly pg: TestPostgres;
  /** Ralph processes (workers, waiting clients) to kill once the file's tests are done. */
  processes: RalphProcess[];
  /** Library fleets to close once the file's tests are done. */
  fleets: { close(): Promise<void> }[];
  /** A database of its own for one test, on the shared server. */
  databaseFor(name: string): string;
  /** A fresh agent workspace, whose agents are killed and folder removed after the file's tests. */
  workspace(): Promise<AgentWorkspace>;
}

/** Starts the file's Postgres before its tests; afterwards kills what they started and stops it. */
export function useFleetScene(): FleetScene {
  let pg: TestPostgres | undefined;
  const workspaces: AgentWorkspace[] = [];
  const scene: FleetScene = {
    get pg() {
      if (pg === undefined) throw new Error('the fleet scene has no Postgres yet (use it inside a test)');
      return pg;
    },
    processes: [],
    fleets: [],
    databaseFor: (name) => scene.pg.url.replace(/\/ralph$/, `/${name}`),
    async workspace() {
      const ws = await agentWorkspace();
      workspaces.push(ws);
      return ws;
    },
  };
  beforeAll(async () => {
    pg = await startTestPostgres();
  }, 60_000);
  afterAll(async () => {
    for (const process of scene.processes) process.child.kill('SIGKILL');
    await Promise.all(scene.processes.map((process) => process.exited));
    // A failed test must not leave its agents behind (killed with their workers, they would run on as orphans).
    for (const ws of workspaces) killAgents(ws);
    await Promise.all(scene.fleets.map((fleet) => fleet.close()));
    await Promise.all(workspaces.map((ws) => ws.cleanup()));
    await pg?.destroy();
  }, 60_000);
  return scene;
}

/**
 * A worker SIGKILLed once its test finished, passed or failed, before the test's folders go (hooks run last first):
 * its reaper then kills what it left running, finding the round folders still in the worker's TMPDIR.
 */
export function killedAfterTest(scene: FleetScene, started: RalphProcess): RalphProcess {
  scene.processes.push(started);
  onTestFinished(async () => {
    const reaper = reaperOf(started.pid);
    if (started.child.exitCode === null && started.child.signalCode === null) started.child.kill('SIGKILL');
    await started.exited;
    if (reaper !== undefined) await waitFor(() => !isRunning(reaper), "the worker's reaper to sweep");
  });
  return started;
}

/** Starts `ralph dashboard` on the fleet (killed with the file's processes): its printed address (with the token). */
export async function startDashboard(
  scene: FleetScene,
  url: string,
  ...extra: string[]
): Promise<{ address: URL; dashboard: RalphProcess }> {
  const dashboard = spawnRalph(['dashboard', '--database-url', url, ...extra]);
  scene.processes.push(dashboard);
  const line = await waitFor(
    () => /ralph: dashboard at (\S+)/.exec(dashboard.stderr())?.[1] ?? dashboard.child.exitCode !== null,
    'the dashboard to listen',
  );
  if (typeof line !== 'string') throw new Error(`the dashboard exited: ${dashboard.stderr()}`);
  return { address: new URL(line), dashboard };
}
