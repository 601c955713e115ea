import { homedir, hostname } from 'node:os';
import { join } from 'node:path';
import type { DBOSConfig } from '@dbos-inc/dbos-sdk';
import type { RalphConfigInput } from '../contract/config.js';
import { errorText } from '../contract/error-text.js';
import { RalphError } from '../contract/errors.js';
import { dbConnectionsRefused } from '../contract/fleet-connection-messages.js';
import type { RalphProgressEvent } from '../contract/types.js';
import type { GitHubApi } from '../github/github-api.js';
import { runNotifications } from '../notify/run-notifications.js';
import { killLiveGroups } from '../process/live-groups.js';
import { sweepOrphanedRounds } from '../process/round-folder.js';
import { assertSandboxAvailable } from '../process/sandbox-check.js';
import { stripControl } from '../render/terminal-text.js';
import { startTracesIfAsked } from '../trace/start-traces.js';
import { parkRun, publishedQuestionRound } from './answer-park.js';
import { type BatchTaskResult, landingPartition, landingWorkflowId } from './batch-input.js';
import { type LandingInput, landTask } from './batch-landing.js';
import { fleetGitHub, landingPullProblem, pullRefusal, pullRowProblem } from './batch-pulls.js';
import { resolveOnFleet } from './batch-resolve.js';
import { batchRowProblem } from './batch-row.js';
import { batchCostUsd, batchRowOrder, cancelBatchRuns, runCostUsd } from './batch-runs.js';
import { batchRefusal, rowRefusal, runBatchTask } from './batch-task.js';
import { assertRoomForWorker, assertRoomOnServer } from './connection-room.js';
import {
  DEFAULT_DB_CONNECTIONS,
  DEFAULT_LEASE_MS,
  FLEET_APP_NAME,
  FLEET_APP_VERSION,
  FLEET_QUEUE,
  FLEET_WORKFLOW,
  LANDING_WORKFLOW,
  MERGE_QUEUE,
  MIN_DB_CONNECTIONS,
  MIN_LEASE_MS,
} from './constants.js';
import { assertDatabaseReachable, FleetError, stderrLogger } from './database.js';
import { takeDatabaseSettings } from './database-env.js';
import {
  holderGoneHere,
  holderHere,
  type LeaseHolder,
  LeaseTable,
  thisHolder,
  type WorkerLease,
} from './leases.js';
import type { PgPool } from './pg-pool.js';
import { DEFAULT_IDLE_POLL_MS, prepareQueueWake } from './queue-wake.js';
import { QUEUE_WAKE_CHANNEL } from './queue-wake-trigger.js';
import { startReaper } from './reaper.js';
import { RunEventTable, runEventSink } from './run-events.js';
import type { FleetOutcome, FleetProviderFactory, FleetRunInput } from './run-input.js';
import { fleetRunNotifier, type WorkerNotify } from './run-notifier.js';
import { landingSandbox, parsedSandbox, workerSandbox } from './run-sandbox.js';
import { prepareFleetDatabase } from './schema.js';
import { loadDbos } from './sdk.js';
import { createWorkerPool } from './worker-pool.js';
import { runFleetRun } from './workflow.js';

/** How a worker is started. */
export interface RalphWorkerOptions {
  /** postgres://… of the fleet's database (DBOS creates it and its tables on first launch; needs CREATEDB). */
  databaseUrl: string;
  /**
   * The worker's DBOS executor id: unique among live workers and stable across restarts, since a worker restarted
   * under its id recovers its own unfinished runs at once. Default: `<hostname>-<n>`, the first n whose lease is
   * free or whose holder is a dead process of this host (so a restarted worker gets its old id back).
   */
  workerId?: string;
  /** How many runs this worker runs at once (the queue's per-worker limit; default 1). */
  concurrency?: number;
  /**
   * How many Postgres connections it holds at most, whatever its concurrency (default 3, at least 2): one pool for
   * DBOS and ralph. Refused at start when the server has fewer free.
   */
  dbConnections?: number;
  /** How long the worker's lease lasts without a heartbeat before live workers take its runs over (ms). */
  leaseMs?: number;
  /** Makes each run's provider from its `agent` (the CLI's: the agent options of `ralph run`). */
  providerFor: FleetProviderFactory;
  /**
   * Whether it runs a run's `--verify` command (any command its submitter chose, run as the worker's user); without
   * it a run that carries one settles refused, starting nothing.
   */
  allowVerify?: boolean;
  /**
  /**
   * Where the notifications of every run it takes go (the worker's own targets), and whether it also sends them
   * where a run's submitter chose; none when omitted.
   */
  notify?: WorkerNotify;
  /**
   * Whether it takes batch tasks (`ralph submit --batch`): it then clones the repository a submitter named, and
   * pushes the task's branch and the batch's target there, with this worker's credentials. Without it such a task
   * settles refused, starting nothing.
   */
  allowBatch?: boolean;
  /**
   * With `ralph worker --allow-github`: the client of the worker's own GitHub token, with which it opens the pull
   * requests of `--land pr` batch tasks (the token out of its environment already). Without it such a task settles
   * refused, starting nothing.
   */
  github?: GitHubApi;
  /** Where it keeps its clones of batch repositories and their worktrees (default ~/.ralph/workers/<id>). */
  stateDir?: string;
  /**
   * The sandbox every run it takes runs in (`ralph worker --sandbox`: its agents, evaluators, verify commands, and the
   * merge queue's verify and resolver loop of its landings), whatever the run asks; refused at start where no sandbox
   * can run. Absent: only runs submitted with `--sandbox` are sandboxed (refused where none can run). Either way a
   * sandbox hides the worker's state folder (but the task's own worktree), `~/.ralph` and `privatePaths`.
   */
  sandbox?: RalphConfigInput['sandbox'];
  /** The worker's own files no sandboxed process may see besides its state folder (its database URL file). */
  privatePaths?: readonly string[];
  /** Where the worker's notices go, one line each (default: stderr). */
  onNotice?: (line: string) => void;
  /**
   * How often an idle worker polls its queues (ms; default 30 s) while enqueues wake it (docs/fleets.md): only a
   * safety net for a lost notification. Without the wake (a transaction-mode pooler) it polls every second.
   */
  idlePollMs?: number;
}

/** A started worker. One per process: DBOS runs one executor per process. */
export interface RalphWorker {
  workerId: string;
  /**
   * Settles when the worker stopped on its own: another worker took its runs over while it could not renew its
   * lease (it then killed its children), or its lease could not be renewed at all. Never settles after `stop`.
   */
  lost: Promise<string>;
  /**
   * Stops the worker now: its lease is ended (so live workers take its runs over at their next heartbeat), its
   * children are killed, and DBOS is shut down. Runs in progress are left pending, to be recovered as after a crash.
   */
  stop(): Promise<void>;
}

const NOTICE = 'ralph worker';

/** How a run ended, for the worker's line about it: its status and rounds, or its failure's kind and message. */
function outcomeText(outcome: FleetOutcome): string {
  if (outcome.ok) {
    const { status, rounds } = outcome.envelope.result;
    return `${status} after ${rounds} round${rounds === 1 ? '' : 's'}`;
  }
  const { code, message } = outcome.failure;
  return code === 'cancelled' ? 'cancelled' : `${code === 'refused' ? 'refused' : 'failed'}: ${message}`;
}

/** The first free default id of this host: `<hostname>-1`, `-2`, …; free when unheld, expired, or its holder died. */
async function claimWorkerId(
  leases: LeaseTable,
  holder: LeaseHolder,
  leaseMs: number,
  workerId: string | undefined,
): Promise<string> {
  const candidates =
    workerId === undefined ? Array.from({ length: 64 }, (_, n) => `${hostname()}-${n + 1}`) : [workerId];
  for (const candidate of candidates) {
    const lease = await leases.get(candidate);
    if (lease !== undefined && !lease.expired && !holderGoneHere(lease)) {
      if (workerId === undefined) continue;
      throw new FleetError(
        `${NOTICE}: worker id ${workerId} is held by a live worker (pid ${lease.pid} on ${lease.hostname}); ` +
          'give each worker an id of its own (--worker-id)',
      );
    }
    if (await leases.claim(candidate, holder, leaseMs, lease)) return candidate;
    if (workerId !== undefined) {
      throw new FleetError(`${NOTICE}: worker id ${workerId} was claimed by another worker just now`);
    }
  }
  throw new FleetError(`${NOTICE}: no free worker id on this host; pass --worker-id`);
}

/**
 * Starts a worker: it runs fleet runs from the queue, `concurrency` at a time, each as a DBOS workflow whose steps
 * are its rounds. Refused with a FleetError (one line) when the database cannot be reached or the id is held, and
 * with a RalphError (refused) when the server has fewer connections free than `dbConnections`, before anything starts.
 * Every heartbeat (a third of the lease) it renews its lease and takes over the runs of workers whose lease ran
 * out: a dead worker of this host has its rounds' process groups killed first (the round folders' owner records);
 * a worker elsewhere is taken over only a heartbeat after its lease ran out, by which time a live one would have
 * seen it could not renew.
 */
export async function startRalphWorker(options: RalphWorkerOptions): Promise<RalphWorker> {
  const write = options.onNotice ?? ((line: string) => process.stderr.write(`${line}\n`));
  // Its lines carry what the database holds (run ids, task ids, targets, failures): data, whose terminal escapes
  // would act on the operator's terminal, as `ralph runs`, `status` and `wait` strip them.
  const notice = (line: string) => write(stripControl(line));
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const concurrency = options.concurrency ?? 1;
  if (!Number.isSafeInteger(leaseMs) || leaseMs < MIN_LEASE_MS) {
    throw new FleetError(`${NOTICE}: the lease must be at least ${MIN_LEASE_MS} ms`);
  }
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new FleetError(`${NOTICE}: the concurrency must be a whole number of at least 1`);
  }
  const dbConnections = options.dbConnections ?? DEFAULT_DB_CONNECTIONS;
  if (!Number.isSafeInteger(dbConnections) || dbConnections < MIN_DB_CONNECTIONS) {
    throw new RalphError({
      code: 'refused',
      message: dbConnectionsRefused(String(dbConnections), MIN_DB_CONNECTIONS),
    });
  }
  const ownSandbox = parsedSandbox(options.sandbox, NOTICE);
  // Never a worker that says it sandboxes and cannot: refused before the database is asked.
  if (ownSandbox !== undefined) await assertSandboxAvailable();
  // Before anything is started: no child of this process (agent, verify command, reaper) gets the database settings.
  const databaseUrl = takeDatabaseSettings(options.databaseUrl);
  // Before the database is set up or anything runs: a server without room refuses now, with its figures.
  const roomFor = (pool: PgPool) => assertRoomForWorker(pool, dbConnections);
  if (!(await assertDatabaseReachable(databaseUrl, NOTICE, roomFor)))
    await assertRoomOnServer(databaseUrl, dbConnections);
  const { DBOS, Error: DbosErrors } = await loadDbos();
  // The worker's own TRACEPARENT is no run's parent: each run's trace is its own, on every worker (fleetTraceIdOf).
  const traces = await startTracesIfAsked({ ...process.env, TRACEPARENT: '', TRACESTATE: '' }, (line) =>
    notice(`${NOTICE}: ${line}`),
  );
  // Creates the database, DBOS's tables and ralph's on the first launch; refuses a database of another release.
  await prepareFleetDatabase(databaseUrl, () => DBOS.migrate(databaseUrl), NOTICE);

  // The worker's only connections, DBOS's and ralph's alike: at most dbConnections, whatever the concurrency.
  const pool = createWorkerPool(databaseUrl, dbConnections);
  const leases = new LeaseTable(pool);
  const runEvents = new RunEventTable(pool);
  const holder = thisHolder();
  let workerId: string;
  try {
    workerId = await claimWorkerId(leases, holder, leaseMs, options.workerId);
  } catch (error) {
    // A refused worker leaves nothing open behind it (an idle pool would hold the process for its timeout).
    await pool.end().catch(() => {});
    throw error;
  }

  // A previous incarnation of this worker (or any ralph host of this machine) killed with SIGKILL may have left its
  // agents running: they are killed before DBOS recovers this id's runs and starts their rounds again.
  await sweepOrphanedRounds();
  // From here on, this worker killed by SIGKILL has its agents killed at once by its reaper.
  const reaper = startReaper();

  // The runs this worker saw cancelled or parked: DBOS then warns that their outcome was not recorded, as expected.
  const cancelled = new Set<string>();
  const expectedWarning = (line: string) => {
    const id = /^Workflow (\S+) outcome was not recorded: the workflow is no longer owned/.exec(line)?.[1];
    return id !== undefined && cancelled.delete(id);
  };
  const queues = options.allowBatch === true ? [FLEET_QUEUE, MERGE_QUEUE] : [FLEET_QUEUE];
  // Hooked into DBOS's queue runner before it starts: a run enqueued on an idle worker is taken at once.
  const wake = prepareQueueWake(queues, options.idlePollMs ?? DEFAULT_IDLE_POLL_MS);
  DBOS.setConfig({
    name: FLEET_APP_NAME,
    systemDatabaseUrl: databaseUrl,
    systemDatabasePool: pool as unknown as NonNullable<DBOSConfig['systemDatabasePool']>,
    applicationVersion: FLEET_APP_VERSION,
    executorID: workerId,
    // Only a worker that takes batch tasks takes their landings: the others never dequeue from the merge queue.
    listenQueues: queues,
    runAdminServer: false,
    // Set up above, under the lock: DBOS's own launch only checks it (migrating there too would race the others).
    runMigrations: false,
    logger: stderrLogger(NOTICE, notice, expectedWarning),
  });
  const steps = {
    runStep: <T>(body: () => Promise<T>, name: string) => DBOS.runStep(body, { name }),
    cancelSignal: () => DBOS.stepStatus?.cancelSignal,
  };
  const messages = {
    recv: (topic: string, timeoutSeconds: number) => DBOS.recv<unknown>(topic, { timeoutSeconds }),
    setEvent: (key: string, value: unknown) => DBOS.setEvent(key, value),
    isCancelled: (error: unknown) => error instanceof DbosErrors.DBOSWorkflowCancelledError,
  };
  const folders = { stateDir: options.stateDir ?? join(homedir(), '.ralph', 'workers', workerId) };
  const sandbox = workerSandbox(ownSandbox, {
    stateDir: folders.stateDir,
    ...(options.privatePaths === undefined ? {} : { privatePaths: options.privatePaths }),
  });
  const github = options.github === undefined ? undefined : fleetGitHub(options.github);
  const landing = DBOS.registerWorkflow(
    async ({ task, runId, resolver, sandbox: asked, pull }: LandingInput): Promise<BatchTaskResult> => {
      notice(
        `${NOTICE} ${workerId}: landing ${task.taskId} of batch ${task.batchId} (run ${runId}) on ${task.target}`,
      );
      const allowed = {
        workerId,
        allowBatch: options.allowBatch === true,
        allowVerify: options.allowVerify === true,
      };
      const landingId = DBOS.workflowID ?? 'unknown';
      const problem =
        (await batchRowProblem(task, landingId, landingWorkflowId)) ??
        pullRowProblem(task) ??
        // A task that goes out as a pull request never moves the target, whatever its landing's input lacks.
        (pull === undefined
          ? task.land === undefined
            ? null
            : 'it lands as a pull request, and its landing says nothing of it'
          : landingPullProblem(pull));
      const boxed = await landingSandbox(sandbox, asked, workerId);
      const refusal =
        batchRefusal(allowed, task) ??
        (problem === null ? null : rowRefusal(workerId, landingId, problem)) ??
        pullRefusal({ workerId, github }, task) ??
        boxed.refusal;
      const result: BatchTaskResult =
        refusal !== null
          ? { status: 'needs-review', detail: refusal, files: [] }
          : await steps.runStep(() => {
              const signal = steps.cancelSignal() ?? new AbortController().signal;
              const resolve =
                resolver === undefined
                  ? undefined
                  : (merge: Parameters<typeof resolveOnFleet>[0]) =>
                      resolveOnFleet(merge, task, resolver, options.providerFor, signal, boxed.sandbox);
              const pulling = pull === undefined || github === undefined ? undefined : { ...pull, github };
              return landTask(folders, task, signal, resolve, boxed.sandbox, pulling);
            }, 'land');
      notice(
        `${NOTICE} ${workerId}: ${task.taskId} of batch ${task.batchId}: ${result.status}: ${result.detail}`,
      );
      return result;
    },
    { name: LANDING_WORKFLOW },
  );
  DBOS.registerWorkflow(
    async (input: FleetRunInput) => {
      const runId = DBOS.workflowID ?? 'unknown';
      notice(`${NOTICE} ${workerId}: running ${runId}`);
      const notifier = fleetRunNotifier(
        input,
        options.notify,
        (text) => notice(`${NOTICE} ${workerId}: ${runId}: ${text}`),
        notice,
      );
      const notes = runNotifications(notifier, { runId });
      // Each execution records the run from its start (a replay walks the recorded rounds again), for the dashboard.
      const record = runEventSink(runEvents, runId);
      // A run parked while it waits for an answer ends this execution holding nothing (answer-park.ts): nothing of
      // its stop is told (no notification, no line recorded), since the run goes on, on whichever worker takes it.
      let parked = false;
      const unlessParked =
        <A extends unknown[]>(told: (...args: A) => void) =>
        (...args: A) => {
          if (!parked) told(...args);
        };
      // A run that waits again (woken by its answer, or taken over) does not tell its question again.
      const asked = await publishedQuestionRound(pool, runId).catch(() => undefined);
      const common = {
        onProgress: unlessParked((event: RalphProgressEvent) => {
          if (event.type !== 'question-asked' || event.round !== asked) notes.onProgress(event);
        }),
        onUsage: unlessParked(notes.onUsage),
        workflowId: runId,
        record: { write: unlessParked((line: string) => record.write(line)) },
        providerFor: options.providerFor,
        allowVerify: options.allowVerify === true,
        workerId,
        sandbox,
        ...(traces === undefined ? {} : { traces }),
        steps,
        messages,
      };
      const parking = {
        ...messages,
        park: async (topic: string, deadline: number) => {
          parked = await parkRun(pool, runId, topic, deadline);
          return parked;
        },
      };
      // A batch task waits in place: its landing and its batch's bookkeeping follow its run in this execution.
      const outcome =
        input.batch === undefined
          ? await runFleetRun(input, { ...common, messages: parking })
          : await runBatchTask(
              { ...input, batch: input.batch },
              {
                ...common,
                ...folders,
                allowBatch: options.allowBatch === true,
                batchOrder: (batchId) => batchRowOrder(DBOS, batchId),
                resultOf: (id) => DBOS.getResult(id),
                batchCostUsd: (batchId) => batchCostUsd(DBOS, batchId),
                runCostUsd: (id) => runCostUsd(DBOS, id),
                ...(github === undefined ? {} : { github }),
                cancelBatch: (batchId, except) => cancelBatchRuns(DBOS, batchId, except),
                async land({ batch: task, agent, guardRails, maxRounds, terminationGraceMs }, pull) {
                  const resolver = { agent, guardRails, maxRounds, terminationGraceMs };
                  const handle = await DBOS.startWorkflow(landing, {
                    workflowID: landingWorkflowId(task.batchId, task.taskId),
                    queueName: MERGE_QUEUE,
                    enqueueOptions: { queuePartitionKey: landingPartition(task) },
                  })({
                    task,
                    runId,
                    ...(task.resolveConflicts === true ? { resolver } : {}),
                    // The run's ask goes with its landing, which any worker of the merge queue may take.
                    ...(input.sandbox === undefined ? {} : { sandbox: input.sandbox }),
                    ...(pull === undefined ? {} : { pull }),
                  });
                  return handle.getResult();
                },
              },
            );
      await record.flush();
      if (parked) {
        // DBOS warns that its outcome was not recorded, as expected: the row is the queue's again.
        cancelled.add(runId);
        notice(
          `${NOTICE} ${workerId}: ${runId} waits for an answer, holding no worker slot (any worker goes on with it once answered)`,
        );
        void notifier.close();
        return outcome;
      }
      if (!outcome.ok && outcome.failure.code === 'cancelled') {
        cancelled.add(runId);
        // Bounded: a warning DBOS never wrote leaves its id behind only until many later cancels.
        if (cancelled.size > 256) cancelled.delete(cancelled.values().next().value as string);
      }
      notice(`${NOTICE} ${workerId}: ${runId} ${outcomeText(outcome)}`);
      if (outcome.ok) notes.settled(outcome.envelope);
      else notes.failed(new RalphError(outcome.failure, { runId }));
      // Not awaited: the run is over, and its notifications never hold its outcome back (bounded, in the background).
      void notifier.close();
      return outcome;
    },
    { name: FLEET_WORKFLOW },
  );
  try {
    await DBOS.launch();
    await DBOS.registerQueue(FLEET_QUEUE, { workerConcurrency: concurrency, onConflict: 'always_update' });
    // One landing at a time per repository and target, across the fleet: the merge queue of `ralph submit --batch`.
    await DBOS.registerQueue(MERGE_QUEUE, { partitionConcurrency: 1, onConflict: 'always_update' });
    const woken = await wake?.start(async (payload) => {
      await pool.query('SELECT pg_notify($1, $2)', [QUEUE_WAKE_CHANNEL, payload]);
    });
    if (woken !== true) {
      notice(
        `${NOTICE} ${workerId}: enqueues do not wake this worker (no notification came back: a transaction-mode pooler?); it polls the queue every second`,
      );
    }
  } catch (error) {
    await DBOS.shutdown().catch(() => {});
    wake?.stop();
    reaper?.stop();
    await leases.expire(workerId, holder).catch(() => {});
    await pool.end().catch(() => {});
    throw new FleetError(`${NOTICE} ${workerId}: DBOS could not start: ${errorText(error)}`);
  }

  let stopped = false;
  let resolveLost: (reason: string) => void = () => {};
  const lost = new Promise<string>((resolve) => {
    resolveLost = resolve;
  });
  let databaseLost = false;
  // When the database came back after an outage: the other workers could not renew either, so their leases say
  // nothing about them until each has had a lease's time to renew again.
  let backSince = Number.NEGATIVE_INFINITY;

  const takeOver = async (lease: WorkerLease) => {
    if (holderHere(lease) && !holderGoneHere(lease)) return; // alive on this host: only slow, not dead
    if (!(await leases.takeOver(lease, holder, leaseMs, Math.ceil(lease.leaseMs / 3)))) return;
    if (holderHere(lease)) await sweepOrphanedRounds();
    const pending = await DBOS.listWorkflows({
      executorId: lease.workerId,
      status: 'PENDING',
      applicationVersion: FLEET_APP_VERSION,
      loadInput: false,
      loadOutput: false,
    });
    // A landing goes back to the merge queue, keeping its partition: still one landing per target at once.
    for (const run of pending)
      await DBOS.resumeWorkflow(run.workflowID, {
        queueName: run.workflowName === LANDING_WORKFLOW ? MERGE_QUEUE : FLEET_QUEUE,
      });
    await leases.release(lease.workerId, holder);
    // A worker that stopped with nothing running leaves only its row: clearing it is nothing to tell.
    if (pending.length > 0)
      notice(
        `${NOTICE} ${workerId}: took over ${pending.length} run(s) of worker ${lease.workerId} (its lease ran out)`,
      );
  };

  const beat = async () => {
    try {
      const renewed = await leases.renew(workerId, holder, leaseMs);
      if (databaseLost) {
        notice(`${NOTICE} ${workerId}: the database is back`);
        backSince = Date.now();
      }
      databaseLost = false;
      if (!renewed) {
        fence(
          `${NOTICE} ${workerId}: another worker took this worker's runs over (its lease ran out); stopping`,
        );
        return;
      }
      for (const lease of await leases.all()) {
        const heardOf = Date.now() - backSince > lease.leaseMs;
        if (lease.workerId !== workerId && lease.expired && heardOf && !stopped) await takeOver(lease);
      }
    } catch (error) {
      if (!databaseLost) {
        notice(`${NOTICE} ${workerId}: lost the database (${errorText(error)}); retrying, the runs go on`);
      }
      databaseLost = true;
    }
  };

  let beating: Promise<void> = Promise.resolve();
  const timer = setInterval(
    () => {
      beating = beating.then(beat);
    },
    Math.max(250, Math.floor(leaseMs / 3)),
  );

  const shutdown = async ({ handOver }: { handOver: boolean }) => {
    stopped = true;
    clearInterval(timer);
    await beating.catch(() => {});
    // DBOS first, so that no round stopped here is recorded as failed: the runs stay pending, to be recovered.
    await DBOS.shutdown().catch(() => {});
    wake?.stop();
    killLiveGroups();
    // Only once its children are killed may others take its runs over without waiting out the lease.
    if (handOver) await leases.expire(workerId, holder).catch(() => {});
    reaper?.stop();
    await pool.end().catch(() => {});
    // What the runs' spans still hold in the buffer, within the flush bound.
    await traces?.shutdown();
  };

  function fence(reason: string) {
    if (stopped) return;
    notice(reason);
    killLiveGroups();
    void shutdown({ handOver: false }).then(() => resolveLost(reason));
  }

  notice(
    `${NOTICE} ${workerId}: taking runs from queue ${FLEET_QUEUE} (concurrency ${concurrency}, lease ${leaseMs} ms)`,
  );
  return {
    workerId,
    lost,
    async stop() {
      if (stopped) return;
      await shutdown({ handOver: true });
    },
  };
}
