import { resolve } from 'node:path';
import { parseDuration } from '../../contract/duration.js';
import { RalphError } from '../../contract/errors.js';
import { EXIT } from './exit-codes.js';
import { databaseUrlOf, type FleetOptions, quietDeprecations, reportFleetFailure } from './fleet-cli.js';
import { type NotifyOptions, notifyPolicyOf, notifyTargetsOf } from './notify-options.js';
import { parseNumberOption } from './numbers.js';
import { type SandboxOptions, sandboxConfig } from './sandbox-options.js';
import { type WorkerAgentOptions, workerProviderFactory } from './worker-agents.js';

/** The options of `ralph worker`: the database, the worker's id and limits, and the agents it offers. */
export interface WorkerOptions extends FleetOptions, WorkerAgentOptions, NotifyOptions, SandboxOptions {
  workerId?: string;
  concurrency?: string;
  lease?: string;
  /** Whether it runs a submitted run's `--verify` command. */
  allowVerify?: boolean;
  /** Whether it sends a run's notifications to the URLs its submitter gave (`ralph submit --notify`). */
  allowNotify?: boolean;
  /** Whether it takes batch tasks (clones and pushes the repository a submitter named). */
  allowBatch?: boolean;
  /** Where it keeps its clones of batch repositories. */
  stateDir?: string;
}

/**
 * `ralph worker`: runs fleet runs until SIGINT or SIGTERM, which end its lease (live workers take its runs over at
 * once), kill its children and exit 0; the runs it had are recovered as after a crash. Exit 1 with one line when the
 * database cannot be reached or the id is held, or when another worker took its runs over (it then killed its
 * children).
 */
export async function workerCommand(options: WorkerOptions): Promise<number> {
  quietDeprecations();
  try {
    // What this worker runs is its own choice, refused before the database is asked when it offers nothing.
    const providerFor = workerProviderFactory(options);
    const databaseUrl = databaseUrlOf(options);
    const concurrency = options.concurrency === undefined ? 1 : parseNumberOption(options.concurrency);
    if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
      throw new RalphError({
        code: 'refused',
        message: `ralph worker --concurrency must be a whole number of at least 1 (got ${JSON.stringify(options.concurrency)})`,
      });
    }
    const leaseMs =
      options.lease === undefined ? undefined : parseDuration(options.lease, 'ralph worker --lease');
    const stateDir = options.stateDir === undefined ? undefined : resolve(options.stateDir);
    // Every run's sandbox with --sandbox; either way a run's sandbox hides the URL file and the state folder.
    const { sandbox } = sandboxConfig(options, [options.databaseUrlFile, stateDir]);
    const notifyTargets = notifyTargetsOf(options);
    const notifyPolicy = notifyPolicyOf(options, notifyTargets);
    const { startRalphWorker } = await import('../../fleet/worker.js');
    const worker = await startRalphWorker({
      databaseUrl,
      // A run's agent is what `ralph submit` stored; the worker runs it only if it offers it.
      providerFor,
      allowVerify: options.allowVerify === true,
      notify: { targets: notifyTargets, policy: notifyPolicy, allowSubmitted: options.allowNotify === true },
      allowBatch: options.allowBatch === true,
      ...(stateDir === undefined ? {} : { stateDir }),
      ...(sandbox === undefined ? {} : { sandbox }),
      ...(options.databaseUrlFile === undefined ? {} : { privatePaths: [options.databaseUrlFile] }),
      concurrency,
      ...(options.workerId === undefined ? {} : { workerId: options.workerId }),
      ...(leaseMs === undefined ? {} : { leaseMs }),
    });
    return await new Promise<number>((resolve) => {
      const onSignal = () => {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        process.stderr.write(`ralph worker ${worker.workerId}: stopping; its runs go to other workers\n`);
        void worker.stop().then(() => resolve(EXIT.complete));
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      void worker.lost.then(() => resolve(EXIT.failed));
    }).then((code) => {
      // DBOS leaves timers behind after its shutdown: the worker is done, so is the process.
      process.exit(code);
    });
  } catch (error) {
    return reportFleetFailure(error);
  }
}
