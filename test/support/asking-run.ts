import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  makeWorkspace,
  PLAN_AGENT_COMMAND,
  type PlanStep,
  ralph,
  type Spawned,
  spawnRalph,
  type Workspace,
  waitUntil,
} from '../fixtures/cli-agents/harness.js';
import { cleanEnv } from './processes.js';

/** A `ralph run --ask` under test: its workspace, its own HOME (so ~/.ralph is a temp folder), its recording. */
export interface AskingRun extends Spawned {
  ws: Workspace;
  home: string;
  env: NodeJS.ProcessEnv;
  record: string;
  /** The run's ask folder (~/.ralph/asks/<run id>). */
  askFolder(runId: string): string;
  /** `ralph <args>` in another process, as the same user (same HOME). */
  ralphToo(args: string[]): ReturnType<typeof ralph>;
}

/** What a test made, removed after it: workspaces and HOMEs. */
const made: { cleanup(): Promise<void> }[] = [];

/** Removes what the tests made; call in afterEach. */
export async function cleanUpAskingRuns(): Promise<void> {
  await Promise.all(made.splice(0).map((thing) => thing.cleanup()));
}

/** A temporary HOME (its ~/.ralph starts empty), removed after the test. */
export async function temporaryHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'ralph-home-'));
  made.push({ cleanup: () => rm(home, { recursive: true, force: true }) });
  return home;
}

/** The fake agent's objective in these tests. */
export const OBJECTIVE = 'Migrate the orders table';

/** The blocker the plan agent's `blocked` step reports: the question. */
export const BLOCKER = 'the API key is missing';

/** The argv of `ralph run` on a plan, recorded, with `extra` (the ask options among them). */
export function runArgs(ws: Workspace, record: string, extra: string[]): string[] {
  return [
    'run',
    OBJECTIVE,
    '--agent-command',
    PLAN_AGENT_COMMAND,
    '--cwd',
    ws.dir,
    '--max-rounds',
    '3',
    '--record',
    record,
    ...extra,
  ];
}

/** Starts `ralph run` on a plan with `extra` options, in a HOME of its own; does not wait for anything. */
export async function startAskingRun(plan: PlanStep[], extra: string[]): Promise<AskingRun> {
  const ws = await makeWorkspace(plan);
  made.push(ws);
  const home = await temporaryHome();
  const env = cleanEnv({ HOME: home });
  const record = join(home, 'run.jsonl');
  const spawned = spawnRalph(runArgs(ws, record, extra), { env });
  // A test that failed while its run waited must not leave that run waiting for a day.
  made.push({
    cleanup: async () => {
      if (spawned.child.exitCode === null && spawned.child.signalCode === null) spawned.child.kill('SIGKILL');
    },
  });
  return {
    ...spawned,
    ws,
    home,
    env,
    record,
    askFolder: (runId) => join(home, '.ralph', 'asks', runId),
    ralphToo: (args) => ralph(args, { env }),
  };
}

/**
 * The run id the "Waiting up to … ralph answer <id>" progress line names, once it is printed and the run's question
 * file is written (the line comes first: the file is the answer source's, which starts right after it).
 */
export function waitForQuestion(run: Pick<AskingRun, 'stderrSoFar' | 'askFolder'>): Promise<string> {
  return waitUntil(() => {
    const runId = /Waiting up to .* for an answer\. Answer with: ralph answer (\S+) /.exec(
      run.stderrSoFar(),
    )?.[1];
    return runId !== undefined && existsSync(join(run.askFolder(runId), 'question.json')) && runId;
  }, 'the question to be asked');
}

/** The run ids with a question folder under HOME's ~/.ralph/asks. */
export function askFolders(home: string): string[] {
  const asks = join(home, '.ralph', 'asks');
  return existsSync(asks) ? readdirSync(asks) : [];
}
