import type { Command } from 'commander';
import { addAgentOptions } from './agent-options.js';
import type { FleetOptions } from './fleet-cli.js';
import { addGuardRailOptions, GUARD_RAILS_HELP } from './guard-rail-options.js';
import type { SubmitOptions } from './submit-command.js';
import type { WaitOptions } from './wait-command.js';
import type { WorkerOptions } from './worker-command.js';

const DATABASE_URL = [
  '--database-url <url>',
  "the fleet's Postgres database, postgres://user@host:port/db (default: $RALPH_DATABASE_URL)",
] as const;

const FLEET_HELP = `
A fleet runs Ralph loops as durable DBOS workflows in Postgres: workers on any number of machines take runs from one
queue; a worker that dies is recovered by restarting it under the same --worker-id, or by a live worker once its
lease ran out. Every worker must see the workspace (--cwd) at the same path.
`;

const SUBMIT_GUARD_RAILS_HELP = `On a fleet the guard rails go with the run: whichever worker runs it holds them, also after
a takeover. --max-time counts from the run's start, --max-cost counts the rounds of every worker that ran it.
`;

/**
 * Registers the fleet's commands (worker, submit, status, wait, cancel, runs). Each loads its implementation, and
 * the DBOS SDK with it, only when it runs: `ralph run` never pays for them.
 */
export function addFleetCommands(program: Command, setExitCode: (code: number) => void): void {
  program
    .command('worker')
    .description('run fleet runs from the queue in Postgres (DBOS), until stopped')
    .option(...DATABASE_URL)
    .option('--worker-id <id>', "this worker's unique, stable id (default: <hostname>-<n>, the first free n)")
    .option(
      '--concurrency <n>',
      "how many runs a worker runs at once (the queue's per-worker limit; default 1)",
    )
    .option(
      '--lease <duration>',
      'how long a silent worker keeps its runs before live ones take them (default 30s)',
    )
    .addHelpText('after', FLEET_HELP)
    .action(async (options: WorkerOptions) => {
      const { workerCommand } = await import('./worker-command.js');
      setExitCode(await workerCommand(options));
    });

  addGuardRailOptions(
    addAgentOptions(
      program
        .command('submit')
        .description('enqueue a Ralph loop on a fleet and print its run id')
        .argument('[objective]', 'the immutable objective every round works toward')
        .option('--max-rounds <n>', 'round cap for this run (default and ceiling 256)')
        .option(...DATABASE_URL),
    ),
  )
    .addHelpText('after', `${GUARD_RAILS_HELP}${SUBMIT_GUARD_RAILS_HELP}`)
    .action(async (objective: string | undefined, options: SubmitOptions) => {
      const { submitCommand } = await import('./submit-command.js');
      setExitCode(await submitCommand(objective, options));
    });

  program
    .command('status')
    .description("print a fleet run's state, worker and rounds done")
    .argument('<id>', 'the run id ralph submit printed')
    .option('--json', 'print the status as JSON')
    .option(...DATABASE_URL)
    .action(async (id: string, options: FleetOptions & { json?: boolean }) => {
      const { statusCommand } = await import('./status-command.js');
      setExitCode(await statusCommand(id, options));
    });

  program
    .command('wait')
    .description('wait for a fleet run to end; print its result and exit as ralph run would have')
    .argument('<id>', 'the run id ralph submit printed')
    .option('--json', 'print the result envelope as JSON instead of the text')
    .option(...DATABASE_URL)
    .action(async (id: string, options: WaitOptions) => {
      const { waitCommand } = await import('./wait-command.js');
      setExitCode(await waitCommand(id, options));
    });

  program
    .command('cancel')
    .description('cancel a fleet run: the worker running it stops its child')
    .argument('<id>', 'the run id ralph submit printed')
    .option(...DATABASE_URL)
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
    .action(async (options: FleetOptions & { json?: boolean; limit?: string }) => {
      const { runsCommand } = await import('./runs-command.js');
      setExitCode(await runsCommand(options));
    });
}
