import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowStatus } from '@dbos-inc/dbos-sdk';
import { type PersonAnswer, personAnswerSchema } from '../contract/answers.js';
import { RalphError } from '../contract/errors.js';
import { answerRefused, fleetAnsweredAlready, fleetNotWaiting } from '../contract/fleet-answer-messages.js';
import type { RalphUsage } from '../contract/usage.js';
import { sendAndWake } from './answer-park.js';
import { enqueueBatch, type FleetBatchStatus, type FleetBatchSubmission, readBatch } from './batch-client.js';
import { FLEET_APP_NAME, FLEET_APP_VERSION, FLEET_QUEUE, FLEET_WORKFLOW } from './constants.js';
import { assertDatabaseReachable, FleetError, redactedUrl } from './database.js';
import { isRoundStep, recordedUsage } from './durable-provider.js';
import { answerTopic, type FleetQuestion, fleetQuestionOf, QUESTION_EVENT } from './fleet-question.js';
import { LeaseTable, type WorkerLease } from './leases.js';
import { createPgPool } from './pg-pool.js';
import {
  assertSubmittable,
  type FleetOutcome,
  type FleetRunInput,
  type FleetSubmission,
} from './run-input.js';
import { type FleetRunSandbox, runSandboxOf } from './run-sandbox.js';
import { prepareFleetDatabase } from './schema.js';
import { loadDbos } from './sdk.js';

/** Where a fleet run is. `complete`, `blocked`, `budget-limited` carry the envelope; `failed`, `refused` the failure. */
export type FleetRunState =
  | 'queued'
  | 'running'
  | 'complete'
  | 'blocked'
  | 'budget-limited'
  | 'failed'
  | 'refused'
  | 'cancelled'
  | 'error';

/** A fleet run as the database knows it. */
export interface FleetRunStatus {
  runId: string;
  state: FleetRunState;
  /** The worker running it, or that last ran it. */
  workerId: string | undefined;
  /** Rounds whose result is recorded (a running run is in the round after them). */
  roundsDone: number;
  /**
   * What those rounds' agents said they used, summed over every worker that ran the run (what a cost budget counts);
   * absent while none said anything.
   */
  usage?: RalphUsage;
  /**
   * Whether it ran in a sandbox: how many of its recorded rounds started their child in one (whichever worker ran
   * each), and whether its submitter asked for one (`ralph submit --sandbox`); absent when neither.
   */
  sandbox?: FleetRunSandbox;
  objective: unknown;
  createdAt: number;
  updatedAt: number | undefined;
  /** How it settled, once it has (not for `cancelled` or `error`). */
  outcome: FleetOutcome | undefined;
  /** Why a run in `error` stopped (its workflow threw, or it was recovered too often). */
  error: string | undefined;
  /** The question it waits on for a person's answer (`ralph submit --ask`), while it waits; absent otherwise. */
  question?: FleetQuestion;
}

/** A client of a fleet: submits runs to its queue and follows them; any number of them, in any process. */
export interface RalphFleet {
  /** Enqueues a run and resolves with its id; refused (a RalphError) when its workspace is not a folder here. */
  submit(submission: FleetSubmission): Promise<string>;
  /** The run's status; a FleetError when there is no such run. */
  status(runId: string): Promise<FleetRunStatus>;
  /**
   * Resolves once the run is settled, cancelled or in error, with its final status. Waits through an outage of the
   * database (told to `onDatabase`, once when it is lost and once when it is back).
   */
  wait(
    runId: string,
    options?: {
      pollMs?: number;
      signal?: AbortSignal;
      onDatabase?: (event: 'lost' | 'back', error?: unknown) => void;
    },
  ): Promise<FleetRunStatus>;
  /** Cancels the run: the worker running it stops its child (within about a second) and the run ends cancelled. */
  cancel(runId: string): Promise<void>;
  /**
   * Answers the question the run waits on (`ralph submit --ask`), or gives up on it: a durable message the run takes
   * once, whichever worker runs it next (none need be alive now). Resolves with the round answered; a FleetError when
   * there is no such run; refused (a RalphError) when it waits for no answer, its question has its answer already
   * (the first one counts), or the answer is not one.
   */
  answer(runId: string, answer: PersonAnswer): Promise<number>;
  /**
   * Enqueues a batch's tasks (`ralph submit --batch`), one fleet run each; resolves with their run ids. Refused (a
   * RalphError), nothing enqueued, when a task's ids or repository URL are (a URL with a credential in it above all).
   */
  submitBatch(submission: FleetBatchSubmission): Promise<string[]>;
  /** A batch's tasks and what became of each; a FleetError when there is no such batch. */
  batch(batchId: string): Promise<FleetBatchStatus<FleetRunStatus>>;
  /** The latest runs, newest first. */
  list(options?: { limit?: number }): Promise<FleetRunStatus[]>;
  /** The workers' leases. */
  workers(): Promise<WorkerLease[]>;
  close(): Promise<void>;
}

/** How long a status read may take before `wait` reports the database as lost (it goes on waiting for it). */
const SLOW_READ_MS = 3_000;

const TERMINAL = new Set<FleetRunState>([
  'complete',
  'blocked',
  'budget-limited',
  'failed',
  'refused',
  'cancelled',
  'error',
]);

/** Whether a run state is final. */
export const isSettledState = (state: FleetRunState): boolean => TERMINAL.has(state);

function stateOf(status: WorkflowStatus): FleetRunState {
  switch (status.status) {
    case 'ENQUEUED':
    case 'DELAYED':
      return 'queued';
    case 'PENDING':
      return 'running';
    case 'CANCELLED':
      return 'cancelled';
    case 'SUCCESS': {
      const outcome = status.output as FleetOutcome | undefined;
      if (outcome?.ok === true) return outcome.envelope.result.status;
      if (outcome?.ok === false)
        return outcome.failure.code === 'refused'
          ? 'refused'
          : outcome.failure.code === 'cancelled'
            ? 'cancelled'
            : 'failed';
      return 'error';
    }
    default:
      return 'error';
  }
}

function errorOf(status: WorkflowStatus): string | undefined {
  if (status.status === 'MAX_RECOVERY_ATTEMPTS_EXCEEDED') return 'the run was recovered too many times';
  const error = status.error as { message?: unknown } | string | undefined;
  if (error === undefined || error === null) return undefined;
  return typeof error === 'string' ? error : String(error.message ?? 'the run failed');
}

/** A refusal of `ralph answer` (exit 2, as a local run's answer is refused). */
const refusal = (message: string) => new RalphError({ code: 'refused', message });

const noSuchRun = (runId: string) => new FleetError(`ralph: there is no fleet run ${runId}`);

/** A fleet whose database holds no runs yet (no worker or submit has used it): nothing to list, no run to find. */
function emptyFleet(): RalphFleet {
  const none = async (runId: string): Promise<never> => {
    throw noSuchRun(runId);
  };
  return {
    submit: async () => {
      throw new FleetError('ralph: this fleet client was opened read-only');
    },
    status: none,
    wait: none,
    submitBatch: async () => {
      throw new FleetError('ralph: this fleet client was opened read-only');
    },
    batch: none,
    cancel: none,
    answer: none,
    list: async () => [],
    workers: async () => [],
    close: async () => {},
  };
}

/**
 * Connects to a fleet's database. With `create` (the default; `ralph submit`) the database is created and set up when
 * missing, as a worker does; without it (the read-only commands) a missing database is a FleetError and one not set
 * up yet an empty fleet, so that a typo in the URL creates nothing. Either waits for a setup in progress. A FleetError
 * (one line) when the database cannot be reached; refused (a RalphError) when another release of ralph set it up.
 */
export async function createRalphFleet({
  databaseUrl,
  create = true,
}: {
  databaseUrl: string;
  create?: boolean;
}): Promise<RalphFleet> {
  const what = 'ralph';
  await assertDatabaseReachable(databaseUrl, what);
  const found = await prepareFleetDatabase(
    databaseUrl,
    async () => (await loadDbos()).DBOS.migrate(databaseUrl),
    what,
    create ? 'set-up' : 'read',
  );
  if (found === 'missing') {
    throw new FleetError(
      `${what}: there is no database at ${redactedUrl(databaseUrl)}; is the URL right? (a fleet's database is ` +
        'created by its first ralph worker or ralph submit)',
    );
  }
  if (found === 'empty') return emptyFleet();
  const { DBOSClient } = await loadDbos();
  const client = await DBOSClient.create({ systemDatabaseUrl: databaseUrl, applicationName: FLEET_APP_NAME });
  const pool = createPgPool({ connectionString: databaseUrl, max: 1, connectionTimeoutMillis: 5_000 });
  pool.on('error', () => {});
  const leases = new LeaseTable(pool);

  // What the run publishes while it waits for an answer, checked: the database is anyone's who can write to it.
  const questionOf = async (runId: string): Promise<FleetQuestion | null> =>
    fleetQuestionOf(await client.getEvent(runId, QUESTION_EVENT, { timeoutSeconds: 0 }).catch(() => null));

  const toStatus = async (status: WorkflowStatus): Promise<FleetRunStatus> => {
    const steps = await client.listWorkflowSteps(status.workflowID).catch(() => undefined);
    const state = stateOf(status);
    const input = status.input?.[0] as FleetRunInput | undefined;
    const usage = recordedUsage(steps ?? []);
    const sandbox = runSandboxOf(input?.sandbox !== undefined, steps ?? []);
    const question = state === 'running' || state === 'queued' ? await questionOf(status.workflowID) : null;
    return {
      runId: status.workflowID,
      state,
      // A run no worker has taken yet has an empty executor id.
      workerId: status.executorId === '' ? undefined : status.executorId,
      roundsDone: steps?.filter((step) => isRoundStep(step.name)).length ?? 0,
      ...(usage === null ? {} : { usage }),
      ...(sandbox === undefined ? {} : { sandbox }),
      objective: input?.objective,
      createdAt: status.createdAt,
      updatedAt: status.updatedAt,
      outcome: status.status === 'SUCCESS' ? (status.output as FleetOutcome) : undefined,
      error: state === 'error' ? errorOf(status) : undefined,
      ...(question === null ? {} : { question }),
    };
  };

  const status = async (runId: string): Promise<FleetRunStatus> => {
    const found = await client.getWorkflow(runId);
    if (found === undefined || found.workflowName !== FLEET_WORKFLOW) throw noSuchRun(runId);
    return toStatus(found);
  };

  return {
    async submit(submission) {
      assertSubmittable(submission);
      const input: FleetRunInput = { ...submission };
      const handle = await client.enqueue(
        { queueName: FLEET_QUEUE, workflowName: FLEET_WORKFLOW, appVersion: FLEET_APP_VERSION },
        input,
      );
      return handle.workflowID;
    },
    status,
    async wait(runId, options = {}) {
      let lost = false;
      const lose = (error: unknown) => {
        if (!lost) options.onDatabase?.('lost', error);
        lost = true;
      };
      for (;;) {
        // DBOS retries a read while the database is away, so a read that takes long is the outage showing.
        const asked = status(runId);
        const slow = setTimeout(() => lose(new Error('the database does not answer')), SLOW_READ_MS);
        try {
          const current = await asked;
          if (lost) options.onDatabase?.('back');
          lost = false;
          if (isSettledState(current.state)) return current;
        } catch (error) {
          // No such run is an answer; anything else is the database away, which the run itself outlives.
          if (error instanceof FleetError) throw error;
          lose(error);
        } finally {
          clearTimeout(slow);
        }
        await sleep(
          options.pollMs ?? 500,
          undefined,
          options.signal === undefined ? {} : { signal: options.signal },
        );
      }
    },
    async cancel(runId) {
      await status(runId);
      await client.cancelWorkflow(runId);
    },
    async answer(runId, answer) {
      const checked = personAnswerSchema.safeParse(answer);
      if (!checked.success) throw refusal(answerRefused(answer));
      const current = await status(runId);
      if (current.question === undefined) throw refusal(fleetNotWaiting(runId, current.state));
      const { round } = current.question;
      // Sent and the parked run woken in one transaction, so no worker ever parks it past an answer. One answer a
      // question: a second one is refused (and, sent at the very same time, the same message, dropped).
      const topic = answerTopic(round);
      const sent = await sendAndWake(pool, runId, topic, (locked) =>
        client.sendInTransaction(
          locked as Parameters<typeof client.sendInTransaction>[0],
          runId,
          { round, answer: checked.data },
          topic,
          `${runId}:${round}`,
        ),
      );
      if (!sent) throw refusal(fleetAnsweredAlready(runId, round));
      return round;
    },
    submitBatch: (submission) => enqueueBatch(client, submission),
    async batch(batchId) {
      const found = await readBatch(client, batchId, status);
      if (found.tasks.length === 0) throw new FleetError(`ralph: there is no fleet batch ${batchId}`);
      return found;
    },
    async list({ limit = 20 } = {}) {
      const runs = await client.listWorkflows({ workflowName: FLEET_WORKFLOW, sortDesc: true, limit });
      return Promise.all(runs.map(toStatus));
    },
    async workers() {
      return leases.all();
    },
    async close() {
      await client.destroy().catch(() => {});
      await pool.end().catch(() => {});
    },
  };
}
