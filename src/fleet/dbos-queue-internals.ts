import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The parts of DBOS's queue runner that the queue wake drives (DBOS 5.x: dist/src/wfqueue.js, dbos-executor.js,
 * workflow_management.js). None of them is DBOS's public API: each is looked up and checked here, once, so that a
 * DBOS whose internals moved leaves the worker on DBOS's own polling instead of failing.
 */

/** One queue's scheduling state in DBOS's runner. */
export interface DbosQueueState {
  queue: { name: string; workerConcurrency?: number | undefined };
  nextPollAt: number;
}

/** DBOS's queue runner (the `wfQueueRunner` singleton): its per-queue states and the two methods the wake wraps. */
export interface DbosQueueRunner {
  states: Map<string, DbosQueueState>;
  scheduleDueQueues(
    exec: unknown,
    now: number,
    lanes: number,
    inFlightPolls: Map<string, unknown>,
    wake: () => void,
  ): void;
  adjustInterval(exec: unknown, state: DbosQueueState, contentionDetected: boolean): void;
}

/** The runner's class: its global maintenance cadences (queue reconcile, delayed-workflow transition), in ms. */
export interface DbosQueueRunnerClass {
  reconcileIntervalMs: number;
  transitionIntervalMs: number;
}

/** The launched executor's system database: its LISTEN client's callbacks and its count of running workflows. */
export interface DbosSystemDatabase {
  notificationsMap: {
    registerCallback(key: string, callback: () => void): unknown;
    deregisterCallback(registration: unknown): void;
  };
  countRunningWorkflowsForQueue(queueName: string): number;
}

/** What the queue wake needs of DBOS. */
export interface DbosQueueInternals {
  runner: DbosQueueRunner;
  runnerClass: DbosQueueRunnerClass;
  /** The workflow-timeout sweep's settings (`pollingIntervalMs`: how often it runs, 1 s by default). */
  timeoutSweep: { pollingIntervalMs: number };
  /** The system database of the launched executor; undefined before launch. */
  systemDatabase(): DbosSystemDatabase | undefined;
}

const isFunction = (value: unknown): boolean => typeof value === 'function';

/** DBOS's queue internals, or undefined when this DBOS does not have them as the wake expects. */
export function dbosQueueInternals(): DbosQueueInternals | undefined {
  try {
    const require = createRequire(import.meta.url);
    // The package exports only its index: its siblings are reached by path (the same module instances, by filename).
    const dir = dirname(require.resolve('@dbos-inc/dbos-sdk'));
    const runner = require(join(dir, 'wfqueue.js')).wfQueueRunner as DbosQueueRunner | undefined;
    const executorClass = require(join(dir, 'dbos-executor.js')).DBOSExecutor as
      | { globalInstance?: { systemDatabase?: DbosSystemDatabase } }
      | undefined;
    const timeoutSweep = require(join(dir, 'workflow_management.js')).workflowTimeoutConfig as
      | { pollingIntervalMs: number }
      | undefined;
    const runnerClass = runner?.constructor as unknown as DbosQueueRunnerClass | undefined;
    if (
      runner === undefined ||
      !(runner.states instanceof Map) ||
      !isFunction(runner.scheduleDueQueues) ||
      !isFunction(runner.adjustInterval) ||
      typeof runnerClass?.reconcileIntervalMs !== 'number' ||
      typeof runnerClass.transitionIntervalMs !== 'number' ||
      typeof timeoutSweep?.pollingIntervalMs !== 'number' ||
      executorClass === undefined
    ) {
      return undefined;
    }
    return {
      runner,
      runnerClass,
      timeoutSweep,
      systemDatabase() {
        const database = executorClass.globalInstance?.systemDatabase;
        return database !== undefined &&
          isFunction(database.notificationsMap?.registerCallback) &&
          isFunction(database.countRunningWorkflowsForQueue)
          ? database
          : undefined;
      },
    };
  } catch {
    return undefined;
  }
}
