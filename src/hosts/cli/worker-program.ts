import { type Command, InvalidArgumentError } from 'commander';
import { AGENT_PRESETS } from './agent-options.js';
import type { SetExitCode } from './exit-codes.js';
import { withDatabase } from './fleet-database-options.js';
import { addSandboxOptions, SANDBOX_HELP } from './sandbox-options.js';
import type { WorkerOptions } from './worker-command.js';

/** `--agent` of `ralph worker`: each occurrence adds a preset. */
function collectPreset(value: string, previous: string[] | undefined): string[] {
  if (!(AGENT_PRESETS as readonly string[]).includes(value))
    throw new InvalidArgumentError(`Allowed choices are ${AGENT_PRESETS.join(', ')}.`);
  return [...(previous ?? []), value];
}

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

/** Registers `ralph worker`: runs the fleet's queued runs, with the agents and commands it offers, until stopped. */
export function addWorkerCommand(program: Command, setExitCode: SetExitCode): void {
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
}
