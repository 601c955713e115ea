import { type Command, InvalidArgumentError } from 'commander';
import { AGENT_PRESETS, addAgentOptions } from './agent-options.js';
import { ASK_HELP, addAskOptions } from './ask-options.js';
import { TRUST_TASKS_HELP } from './cli-texts.js';
import type { DashboardOptions } from './dashboard-command.js';
import { addEvaluatorOptions, EVALUATOR_HELP } from './evaluator-options.js';
import type { FleetOptions } from './fleet-cli.js';
import { addGitHubTaskOptions, GITHUB_TASK_KEYS, PULL_KEYS } from './github-task-options.js';
import { addGuardRailOptions, GUARD_RAILS_HELP } from './guard-rail-options.js';
import type { PruneOptions } from './prune-command.js';
import { addSandboxOptions, SANDBOX_HELP } from './sandbox-options.js';
import type { SubmitBatchOptions } from './submit-batch-options.js';
import type { WaitOptions } from './wait-command.js';
import type { WorkerOptions } from './worker-command.js';

const DATABASE_URL = [
  '--database-url <url>',
  "the fleet's Postgres database, postgres://user@host:port/db (default: $RALPH_DATABASE_URL)",
] as const;

const DATABASE_URL_FILE = [
  '--database-url-file <file>',
  'read the database URL from this file (its first line), so its password is not on the command line',
] as const;

/** `--agent` of `ralph worker`: each occurrence adds a preset. */
function collectPreset(value: string, previous: string[] | undefined): string[] {
  if (!(AGENT_PRESETS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`Allowed choices are ${AGENT_PRESETS.join(', ')}.`);
  return [...(previous ?? []), value];
}

/** Adds the database options to a fleet command. */
const withDatabase = (command: Command): Command =>
  command.option(...DATABASE_URL).option(...DATABASE_URL_FILE);

const FLEET_HELP = `
A fleet runs Ralph loops as durable DBOS workflows in Postgres: workers on any number of machines take runs from one
queue; a worker that dies is recovered by restarting it under the same --worker-id, or by a live worker once its
lease ran out. Every worker must see the workspace (--cwd) at the same path.
`;

const WORKER_HELP = `
A worker runs only the agents it offers, with its own executables: --agent claude (repeatable: --agent claude
--agent codex), and --allow-agent-command to also run runs submitted with --agent-command, which run any command
their submitter chose. --agent example needs --allow-agent-command too: it runs the commands of the checklist in the
run's workspace. A run's --verify command is a command too: it runs only with --allow-verify. A run's evaluator
(ralph submit --evaluator) is an agent like any other: it runs only if offered the same way.
The worker's own --notify URLs and --notify-command get the notifications of every run it takes; a run's own --notify
URLs (ralph submit --notify) are POSTed to only with --allow-notify. A run asking for
anything else ends refused, starting nothing. Anyone who can write to the
fleet's database can queue runs: give write access only to those you would let run these agents on every worker.
The agents get no database settings in their environment (RALPH_DATABASE_URL and PG* are removed).
`;

const WORKER_SANDBOX_HELP = `On a worker --sandbox holds for every run it takes (its agents, evaluators and verify commands, and
the merge queue's verify and resolver loop of its landings), whatever the run asks; without it only runs submitted
with --sandbox are sandboxed (refused where bubblewrap cannot run). A sandbox never sees the worker's
--database-url-file, its --state-dir (but the task's own worktree) or ~/.ralph.
`;

const SUBMIT_SANDBOX_HELP = `On a fleet --sandbox asks every worker that takes the run to sandbox it (one where bubblewrap cannot
run refuses it), and --sandbox-network none takes the network away too. It never turns a worker's own sandbox off
(ralph worker --sandbox), and the variables a sandboxed agent keeps are the worker's to name (--sandbox-env).
`;

const SUBMIT_EVALUATOR_HELP = `On a fleet the evaluator is an agent like any other: a worker runs a run only if it offers both the
run's agent and its evaluator (--agent PRESET for --evaluator PRESET, --allow-agent-command for --evaluator-command);
any other worker that takes it ends it refused, starting nothing. With --batch, a task lands only once accepted.
`;

const SUBMIT_GUARD_RAILS_HELP = `On a fleet the guard rails go with the run: whichever worker runs it holds them, also after
a takeover. --max-time counts from the run's start, --max-cost counts the rounds of every worker that ran it.
`;

const SUBMIT_ASK_HELP = `On a fleet the question waits in the database: answer with ralph answer <run-id> "text"
(--database-url), or in ralph dashboard. A run waiting for an answer holds no worker slot and no agent; the answer
may be given while no worker is alive, and the worker that runs the run next takes it, once.
`;

/**
 * Registers the fleet's commands (worker, submit, status, wait, cancel, runs, prune, dashboard). Each loads its implementation, and
 * the DBOS SDK with it, only when it runs: `ralph run` never pays for them.
 */
export function addFleetCommands(program: Command, setExitCode: (code: number) => void): void {
  addSandboxOptions(
    withDatabase(
      program
        .command('worker')
        .description('run fleet runs from the queue in Postgres (DBOS), until stopped'),
    ),
  )
    .option(
      '--agent <name>',
      'a preset this worker runs: claude, codex, qwen, gemini, opencode, copilot, droid or example (repeatable; example needs --allow-agent-command)',
      collectPreset,
    )
    .option('--claude-path <path>', "this worker's claude executable (default: claude on PATH)")
    .option('--codex-path <path>', "this worker's codex executable (default: codex on PATH)")
    .option('--qwen-path <path>', "this worker's qwen executable (default: qwen on PATH)")
    .option('--gemini-path <path>', "this worker's gemini executable (default: gemini on PATH)")
    .option('--opencode-path <path>', "this worker's opencode executable (default: opencode on PATH)")
    .option('--copilot-path <path>', "this worker's copilot executable (default: copilot on PATH)")
    .option('--droid-path <path>', "this worker's droid executable (default: droid on PATH)")
    .option(
      '--allow-agent-command',
      'also run runs submitted with --agent-command: any command their submitter chose',
    )
    .option(
      '--allow-verify',
      "also run a submitted run's --verify command: any command its submitter chose (else such a run is refused)",
    )
    .option(
      '--allow-batch',
      'also take batch tasks (ralph submit --batch): clone the repository a submitter named and push to it',
    )
    .option(
      '--allow-github',
      "also open the pull requests of batches submitted with --land pr, with this worker's own token (GITHUB_TOKEN, GH_TOKEN or gh auth token)",
    )
    .option('--github-api <url>', 'with --allow-github: the API root of GitHub Enterprise')
    .option(
      '--state-dir <dir>',
      'where it keeps its clones of batch repositories (default ~/.ralph/workers/<id>)',
    )
    .option('--worker-id <id>', "this worker's unique, stable id (default: <hostname>-<n>, the first free n)")
    .option(
      '--concurrency <n>',
      "how many runs a worker runs at once (the queue's per-worker limit; default 1)",
    )
    .option(
      '--db-connections <n>',
      'how many Postgres connections it holds at most, whatever its concurrency (default 3, at least 2)',
    )
    .option(
      '--lease <duration>',
      'how long a silent worker keeps its runs before live ones take them (default 30s)',
    )
    .addHelpText('after', `${WORKER_HELP}${SANDBOX_HELP}${WORKER_SANDBOX_HELP}${FLEET_HELP}`)
    .action(async (options: WorkerOptions) => {
      const { workerCommand } = await import('./worker-command.js');
      setExitCode(await workerCommand(options));
    });

  const submit = addAskOptions(
    addSandboxOptions(
      addEvaluatorOptions(
        addGuardRailOptions(
          addAgentOptions(
            program
              .command('submit')
              .description('enqueue a Ralph loop on a fleet and print its run id')
              .argument('[objective]', 'the immutable objective every round works toward')
              .option('--max-rounds <n>', 'round cap for this run (default and ceiling 256)')
              .option(
                '--batch [tasks]',
                'submit every task of a tasks file (or of --from-github) as a run of a batch (see ralph batch); needs --repo',
              )
              .option(
                '--repo <url>',
                "the batch's git repository (file://, https://, ssh://, user@host:path): workers clone it, push there",
              )
              .option(
                '--into <branch>',
                "the branch the batch lands on (default: a new ralph/batch-<id> from the remote's HEAD)",
              )
              .option(
                '--resolve-conflicts',
                "with --batch: a landing's conflict goes to a Ralph loop of fresh agents keeping both sides' intent (needs --verify)",
              )
              .option('--trust-tasks', `with --batch: ${TRUST_TASKS_HELP}`)
              .option(
                '--land <pr>',
                'with --batch: each task goes out as a pull request, opened by a worker with --allow-github and its own token (a task that did not pass: a draft labelled ralph: needs-review)',
              )
              .option(
                '--stack',
                "with --land pr: a task after another opens its pull request against that task's branch",
              )
              .option(
                '--github-repo <owner/repo>',
                "with --land pr: the repository of the pull requests (default: --from-github's, else --repo's on GitHub)",
              )
              .option(
                '--report-url <url>',
                "with --land pr: where the batch's report is published, linked from each pull request",
              )
              .option(...DATABASE_URL)
              .option(...DATABASE_URL_FILE),
          ),
        ),
      ),
    ),
  );
  addGitHubTaskOptions(submit)
    .addHelpText(
      'after',
      `${GUARD_RAILS_HELP}${SUBMIT_GUARD_RAILS_HELP}${ASK_HELP}${SUBMIT_ASK_HELP}${EVALUATOR_HELP}${SUBMIT_EVALUATOR_HELP}${SANDBOX_HELP}${SUBMIT_SANDBOX_HELP}`,
    )
    .action(async (objective: string | undefined, options: SubmitBatchOptions) => {
      // --resolve-conflicts, --trust-tasks or a GitHub option without --batch is refused there (they need a batch),
      // never sent as an agent option. --from-github alone is a batch: its issues are the tasks.
      if (
        options.batch !== undefined ||
        options.resolveConflicts === true ||
        options.trustTasks === true ||
        PULL_KEYS.some((key) => options[key] !== undefined) ||
        GITHUB_TASK_KEYS.some((key) => options[key] !== undefined)
      ) {
        const { submitBatchCommand } = await import('./submit-batch-command.js');
        setExitCode(await submitBatchCommand(objective, options));
        return;
      }
      const { submitCommand } = await import('./submit-command.js');
      setExitCode(await submitCommand(objective, options));
    });

  program
    .command('status')
    .description("print a fleet run's state, worker and rounds done (or a local batch's tasks and questions)")
    .argument('<id>', 'a run or batch id ralph submit printed, or a ralph batch id or its batch.jsonl')
    .option('--json', 'print the status as JSON')
    .option(...DATABASE_URL)
    .option(...DATABASE_URL_FILE)
    .action(async (id: string, options: FleetOptions & { json?: boolean }) => {
      const { statusCommand } = await import('./status-command.js');
      setExitCode(await statusCommand(id, options));
    });

  program
    .command('wait')
    .description('wait for a fleet run to end; print its result and exit as ralph run would have')
    .argument('<id>', 'the run id (or batch id) ralph submit printed')
    .option('--json', 'print the result envelope as JSON instead of the text')
    .option(...DATABASE_URL)
    .option(...DATABASE_URL_FILE)
    .action(async (id: string, options: WaitOptions) => {
      const { waitCommand } = await import('./wait-command.js');
      setExitCode(await waitCommand(id, options));
    });

  program
    .command('cancel')
    .description('cancel a fleet run: the worker running it stops its child')
    .argument('<id>', 'the run id ralph submit printed')
    .option(...DATABASE_URL)
    .option(...DATABASE_URL_FILE)
    .action(async (id: string, options: FleetOptions) => {
      const { cancelCommand } = await import('./cancel-command.js');
      setExitCode(await cancelCommand(id, options));
    });

  program
    .command('runs')
    .description("list a fleet's latest runs and its workers")
    .option('--limit <n>', 'how many runs (default 20)')
    .option('--json', 'print them as JSON')
    .option(...DATABASE_URL)
    .option(...DATABASE_URL_FILE)
    .action(async (options: FleetOptions & { json?: boolean; limit?: string }) => {
      const { runsCommand } = await import('./runs-command.js');
      setExitCode(await runsCommand(options));
    });

  program
    .command('prune')
    .description(
      "delete a fleet's runs and batches that ended longer ago than a duration (never one queued, running or parked)",
    )
    .requiredOption('--older-than <duration>', 'how long ago they ended, e.g. 30d, 12h, 90m')
    .option('--dry-run', 'print what would be pruned, delete nothing')
    .option(...DATABASE_URL)
    .option(...DATABASE_URL_FILE)
    .action(async (options: PruneOptions) => {
      const { pruneCommand } = await import('./prune-command.js');
      setExitCode(await pruneCommand(options));
    });

  withDatabase(
    program
      .command('dashboard')
      .description(
        "serve a web page of the fleet: its runs, its workers, each run's report; cancel runs from it",
      ),
  )
    .option('--host <address>', 'the address to listen on (default 127.0.0.1: this machine only)')
    .option('--port <n>', 'the port to listen on (default 0: any free port)')
    .option('--page-size <n>', 'how many runs a page shows (default 50, at most 200)')
    .action(async (options: DashboardOptions) => {
      const { dashboardCommand } = await import('./dashboard-command.js');
      setExitCode(await dashboardCommand(options));
    });
}
