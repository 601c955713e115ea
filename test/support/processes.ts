import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach } from 'vitest';

/** The fake agent programs. */
export const agentsDir = fileURLToPath(new URL('../fixtures/agents/', import.meta.url));
/** The fake `claude` and `codex` binaries. */
export const binDir = fileURLToPath(new URL('../fixtures/bin/', import.meta.url));

/** argv that runs one fake agent program with this Node binary. */
export const agentCommand = (fixture: string, ...args: string[]): string[] => [
  process.execPath,
  join(agentsDir, fixture),
  ...args,
];

const hasProc = existsSync('/proc/self/stat');

/**
 * True while `pid` runs. A zombie counts as gone: it has exited, and in containers whose init does not reap orphans
 * a killed grandchild stays a zombie for good, which `process.kill(pid, 0)` alone would call alive.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  if (!hasProc) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Polls `condition` until it holds (a deadline only so a broken test fails instead of hanging). */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  deadlineMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A scratch area for one test: a workspace folder, a folder for the fakes' logs, and their cleanup. */
export interface Scratch {
  workspace: string;
  logs: string;
  /** FIXTURE_PID_LOG: every fake appends its pid (and its grandchildren's) here. */
  pidLog: string;
  /** The pids the fakes logged so far. */
  pids(): Promise<number[]>;
  /** Fails unless every logged process is gone. */
  assertNoneRunning(): Promise<void>;
  cleanup(): Promise<void>;
}

export async function scratch(): Promise<Scratch> {
  const workspace = await mkdtemp(join(tmpdir(), 'ralph-ws-'));
  const logs = await mkdtemp(join(tmpdir(), 'ralph-logs-'));
  const pidLog = join(logs, 'pids');
  const pids = async () => {
    const text = await readFile(pidLog, 'utf8').catch(() => '');
    return text.split('\n').filter(Boolean).map(Number);
  };
  return {
    workspace,
    logs,
    pidLog,
    pids,
    async assertNoneRunning() {
      const running = (await pids()).filter(isRunning);
      for (const pid of running) process.kill(pid, 'SIGKILL');
      if (running.length > 0)
        throw new Error(`processes still running after the test: ${running.join(', ')}`);
    },
    async cleanup() {
      await rm(workspace, { recursive: true, force: true });
      await rm(logs, { recursive: true, force: true });
    },
  };
}

/** The parent environment without a RALPH_DEPTH, so tests do not depend on how they were started. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.RALPH_DEPTH;
  return env;
}

/**
 * A fresh scratch area for each test of the enclosing file or describe block; after each test it fails if a process
 * the fakes logged is still running, then removes the folders.
 */
export function useScratch(): Scratch {
  let current: Scratch | undefined;
  beforeEach(async () => {
    current = await scratch();
  });
  afterEach(async () => {
    try {
      await current?.assertNoneRunning();
    } finally {
      await current?.cleanup();
    }
  });
  const now = (): Scratch => {
    if (current === undefined) throw new Error('the scratch area exists only while a test runs');
    return current;
  };
  return {
    get workspace() {
      return now().workspace;
    },
    get logs() {
      return now().logs;
    },
    get pidLog() {
      return now().pidLog;
    },
    pids: () => now().pids(),
    assertNoneRunning: () => now().assertNoneRunning(),
    cleanup: () => now().cleanup(),
  };
}
