import { resolve } from 'node:path';
import { parseDuration } from '../../contract/duration.js';
import { RalphError } from '../../contract/errors.js';
import { dbConnectionsRefused } from '../../contract/fleet-connection-messages.js';
import { githubWaitLine } from '../../contract/github-task-messages.js';
import { MIN_DB_CONNECTIONS } from '../../fleet/constants.js';
import type { GitHubApi } from '../../github/github-api.js';
import { parseNumberOption } from '../../run/numbers.js';
import { apiUrlOf, forgetGitHubTokens } from './batch-github-tasks.js';
import { EXIT } from './exit-codes.js';
import { databaseUrlOf, type FleetOptions, quietDeprecations, reportFleetFailure } from './fleet-cli.js';
import { type NotifyOptions, notifyPolicyOf, notifyTargetsOf } from './notify-options.js';
import { type SandboxOptions, sandboxConfig } from './sandbox-options.js';
import { type WorkerAgentOptions, workerProviderFactory } from './worker-agents.js';

/** The options of `ralph worker`: the database, the worker's id and limits, and the agents it offers. */
export interface WorkerOptions extends FleetOptions, WorkerAgentOptions, NotifyOptions, SandboxOptions {
  workerId?: string;
  concurrency?: string;
  dbConnections?: string;
  lease?: string;
  /** Whether it runs a submitted run's `--verify` command. */
  allowVerify?: boolean;
  /** Whether it sends a run's notifications to the URLs its submitter gave (`ralph submit --notify`). */
  allowNotify?: boolean;
  /** Whether it takes batch tasks (clones and pushes the repository a submitter named). */
  allowBatch?: boolean;
  /** Whether it opens the pull requests of `--land pr` batch tasks, with its own GitHub token. */
  allowGithub?: boolean;
  /** With `allowGithub`: the API root of GitHub Enterprise. */
  githubApi?: string;
  /** Where it keeps its clones of batch repositories. */
  stateDir?: string;
}

/**
 * `ralph worker`: runs fleet runs until SIGINT or SIGTERM, which end its lease (live workers take its runs over at
 * once), kill its children and exit 0; the runs it had are recovered as after a crash. Exit 1 with one line when the
 * database cannot be reached or the id is held, or when another worker took its runs over (it then killed its
 * children). Exit 2, starting nothing, when the server has fewer connections free than `--db-connections`.
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
    // The figure as written, for the refusal of one that is not a whole number of at least 2.
    const dbConnections =
      options.dbConnections === undefined ? undefined : dbConnectionsOf(options.dbConnections);
    const leaseMs =
      options.lease === undefined ? undefined : parseDuration(options.lease, 'ralph worker --lease');
    const stateDir = options.stateDir === undefined ? undefined : resolve(options.stateDir);
    // Every run's sandbox with --sandbox; either way a run's sandbox hides the URL file and the state folder.
    const { sandbox } = sandboxConfig(options, [options.databaseUrlFile, stateDir]);
    const notifyTargets = notifyTargetsOf(options);
    const notifyPolicy = notifyPolicyOf(options, notifyTargets);
    const github = await workerGitHub(options);
    const { startRalphWorker } = await import('../../fleet/worker.js');
    const worker = await startRalphWorker({
      databaseUrl,
      // A run's agent is what `ralph submit` stored; the worker runs it only if it offers it.
      providerFor,
      allowVerify: options.allowVerify === true,
      notify: { targets: notifyTargets, policy: notifyPolicy, allowSubmitted: options.allowNotify === true },
      allowBatch: options.allowBatch === true,
      ...(github === undefined ? {} : { github }),
      ...(stateDir === undefined ? {} : { stateDir }),
      ...(sandbox === undefined ? {} : { sandbox }),
      ...(options.databaseUrlFile === undefined ? {} : { privatePaths: [options.databaseUrlFile] }),
      concurrency,
      ...(dbConnections === undefined ? {} : { dbConnections }),
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

/** `--db-connections` as a number, refused (exit 2) when it is not a whole number of at least MIN_DB_CONNECTIONS. */
function dbConnectionsOf(text: string): number {
  const n = parseNumberOption(text);
  if (Number.isSafeInteger(n) && n >= MIN_DB_CONNECTIONS) return n;
  throw new RalphError({
    code: 'refused',
    message: dbConnectionsRefused(JSON.stringify(text), MIN_DB_CONNECTIONS),
  });
}

/**
 * With `--allow-github`: the client of the worker's own token (GITHUB_TOKEN, GH_TOKEN, else `gh auth token`), read
 * once here, and the token variables taken out of the worker's environment before anything is started, so no agent,
 * verify command or notifier it starts inherits them. A submitter's token never comes here: the database holds none.
 */
async function workerGitHub(options: WorkerOptions): Promise<GitHubApi | undefined> {
  if (options.allowGithub !== true) {
    if (options.githubApi !== undefined)
      throw new RalphError({ code: 'refused', message: 'ralph worker --github-api needs --allow-github' });
    return undefined;
  }
  const apiUrl = apiUrlOf(options.githubApi, 'ralph worker');
  const [{ githubToken }, { createGitHubApi }] = await Promise.all([
    import('../../github/token.js'),
    import('../../github/client.js'),
  ]);
  const token = await githubToken();
  forgetGitHubTokens();
  return createGitHubApi({
    token,
    ...(apiUrl === undefined ? {} : { apiUrl }),
    onWait: (wait) => process.stderr.write(`ralph worker: ${githubWaitLine(wait.seconds, wait.why)}\n`),
  });
}
