import type { Command } from 'commander';
import type { DashboardOptions } from './dashboard-command.js';
import type { SetExitCode } from './exit-codes.js';
import type { FleetOptions } from './fleet-cli.js';
import { DATABASE_URL, DATABASE_URL_FILE, withDatabase } from './fleet-database-options.js';
import type { PruneOptions } from './prune-command.js';
import { addSubmitCommand } from './submit-program.js';
import type { WaitOptions } from './wait-command.js';
import { addWorkerCommand } from './worker-program.js';

/**
 * Registers the fleet's commands (worker, submit, status, wait, cancel, runs, prune, dashboard). Each loads its implementation, and
 * the DBOS SDK with it, only when it runs: `ralph run` never pays for them.
 */
export function addFleetCommands(program: Command, setExitCode: SetExitCode): void {
  addWorkerCommand(program, setExitCode);
  addSubmitCommand(program, setExitCode);

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
