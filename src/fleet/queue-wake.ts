import { randomUUID } from 'node:crypto';
import { type DbosQueueInternals, type DbosQueueState, dbosQueueInternals } from './dbos-queue-internals.js';
import { queueWakePayload } from './queue-wake-trigger.js';

/** How often an idle worker polls its queues while the wake reaches it: a safety net for a lost notification. */
export const DEFAULT_IDLE_POLL_MS = 30_000;

/** How long the start waits for its own test notification before falling back to DBOS's once-a-second poll. */
const SELF_TEST_MS = 3_000;

/** How long the start waits for the first poll of its queues (a queue registered at launch is known within 1 s). */
const FIRST_POLL_MS = 10_000;

/** A worker's queue wake, set up before DBOS launches. */
export interface QueueWake {
  /**
   * After DBOS launched: registers the wake on DBOS's LISTEN client and checks a notification sent through `notify`
   * comes back. Resolves true when it does (the idle polls are then `idlePollMs` apart); false when none came back
   * in time (behind a transaction-mode pooler, say), leaving DBOS's own polling as it was.
   */
  start(notify: (payload: string) => Promise<void>): Promise<boolean>;
  /** Takes the wake out of DBOS's runner (after DBOS shut down). */
  stop(): void;
}

/**
 * Hooks a worker's queue polls to the enqueue announcements (queue-wake-trigger.ts), reusing DBOS's own LISTEN
 * client: an announcement makes the queue's poll due and wakes DBOS's scheduler, so a run submitted to an idle worker
 * is taken at once. The wake never polls itself: DBOS's scheduler runs the poll in its own lane, one poll per queue at
 * a time, so the worker never claims more than its concurrency. An announcement that arrives while the queue's poll
 * runs polls again after it (the poll may have read the queue before the run was committed); one that arrives while
 * the worker is full is dropped (its next poll, a second after a run ends as before, takes the queue's head).
 * While the wake is confirmed, an idle worker polls `idlePollMs` apart (DBOS's queue reconcile, delayed-workflow
 * transition and workflow-timeout sweep too): that is the idle worker's query load. A busy worker polls as DBOS does.
 * Undefined when DBOS's internals are not as expected: the worker then polls as DBOS does.
 */
export function prepareQueueWake(queues: readonly string[], idlePollMs: number): QueueWake | undefined {
  const internals = dbosQueueInternals();
  if (internals === undefined) return undefined;
  return queueWake(internals, new Set(queues), idlePollMs);
}

function queueWake(internals: DbosQueueInternals, queues: Set<string>, idlePollMs: number): QueueWake {
  const { runner, runnerClass, timeoutSweep } = internals;
  const original = {
    scheduleDueQueues: runner.scheduleDueQueues,
    adjustInterval: runner.adjustInterval,
    reconcileIntervalMs: runnerClass.reconcileIntervalMs,
    transitionIntervalMs: runnerClass.transitionIntervalMs,
    timeoutSweepMs: timeoutSweep.pollingIntervalMs,
  };
  /** The queues announced since their last poll began. */
  const pending = new Set<string>();
  /** Waiters for a queue's next poll to end. */
  const polled = new Map<string, (() => void)[]>();
  let wakeScheduler: (() => void) | undefined;
  let listening = false;
  let running: (queue: string) => number = () => 0;
  const full = (state: DbosQueueState) =>
    state.queue.workerConcurrency !== undefined && running(state.queue.name) >= state.queue.workerConcurrency;

  // Each pass of DBOS's scheduler hands this its wake and its in-flight polls: announced queues become due here.
  runner.scheduleDueQueues = function (exec, now, lanes, inFlightPolls, wake) {
    wakeScheduler = wake;
    for (const name of pending) {
      const state = runner.states.get(name);
      // Not known yet (its reconcile brings it), or polling now (its end wakes the scheduler): kept for then.
      if (state === undefined || inFlightPolls.has(name)) continue;
      pending.delete(name);
      if (!full(state)) state.nextPollAt = now;
    }
    original.scheduleDueQueues.call(this, exec, now, lanes, inFlightPolls, wake);
  };
  runner.adjustInterval = function (exec, state, contentionDetected) {
    original.adjustInterval.call(this, exec, state, contentionDetected);
    const name = state.queue.name;
    if (listening && !contentionDetected && queues.has(name) && running(name) === 0) {
      // The same ±5% jitter as DBOS's, so that idle workers started together do not poll together.
      state.nextPollAt = Date.now() + idlePollMs * (0.95 + Math.random() * 0.1);
    }
    for (const resolve of polled.get(name) ?? []) resolve();
    polled.delete(name);
  };
  const announce = (queue: string) => {
    pending.add(queue);
    wakeScheduler?.();
  };
  const nextPollOf = (queue: string) =>
    new Promise<void>((resolve) => polled.set(queue, [...(polled.get(queue) ?? []), resolve]));
  const registrations: {
    key: unknown;
    database: NonNullable<ReturnType<typeof internals.systemDatabase>>;
  }[] = [];

  return {
    async start(notify) {
      const database = internals.systemDatabase();
      if (database === undefined) return false;
      running = (queue) => database.countRunningWorkflowsForQueue(queue);
      // DBOS's own internal queue too: polled once a second like the others, and woken by its enqueues the same way.
      for (const name of runner.states.keys()) queues.add(name);
      for (const queue of queues) {
        const key = database.notificationsMap.registerCallback(queueWakePayload(queue), () =>
          announce(queue),
        );
        registrations.push({ key, database });
      }
      // A notification of our own must come back through DBOS's LISTEN client: behind a transaction-mode pooler the
      // LISTEN is silently lost, and the worker must keep DBOS's once-a-second poll.
      const token = `ralph-wake-check::${randomUUID()}`;
      let timer: NodeJS.Timeout | undefined;
      let registration: unknown;
      const heard = await Promise.race([
        new Promise<boolean>((resolve) => {
          registration = database.notificationsMap.registerCallback(token, () => resolve(true));
          notify(token).catch(() => resolve(false));
        }),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), SELF_TEST_MS);
        }),
      ]);
      clearTimeout(timer);
      database.notificationsMap.deregisterCallback(registration);
      if (!heard) return false;
      listening = true;
      // One poll of each queue now, whose end schedules the next one an idle poll away (a worker started with runs
      // already queued takes them at once); only then the maintenance slows, once each queue is known to the runner.
      const first = Promise.all([...queues].map(nextPollOf));
      for (const queue of queues) announce(queue);
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([first, new Promise((resolve) => (bound = setTimeout(resolve, FIRST_POLL_MS)))]);
      clearTimeout(bound);
      runnerClass.reconcileIntervalMs = Math.max(original.reconcileIntervalMs, idlePollMs);
      runnerClass.transitionIntervalMs = Math.max(original.transitionIntervalMs, idlePollMs);
      timeoutSweep.pollingIntervalMs = Math.max(original.timeoutSweepMs, idlePollMs);
      return true;
    },
    stop() {
      listening = false;
      for (const { key, database } of registrations) database.notificationsMap.deregisterCallback(key);
      registrations.length = 0;
      runner.scheduleDueQueues = original.scheduleDueQueues;
      runner.adjustInterval = original.adjustInterval;
      runnerClass.reconcileIntervalMs = original.reconcileIntervalMs;
      runnerClass.transitionIntervalMs = original.transitionIntervalMs;
      timeoutSweep.pollingIntervalMs = original.timeoutSweepMs;
      for (const waiters of polled.values()) for (const resolve of waiters) resolve();
      polled.clear();
    },
  };
}
