import { type FleetOptions, withFleet } from './fleet-cli.js';
import { parseNumberOption } from './numbers.js';
import { statusLine } from './status-command.js';

/** `ralph runs`: the latest runs, one status line each, newest first, then the workers and their leases. */
export function runsCommand(options: FleetOptions & { json?: boolean; limit?: string }): Promise<number> {
  return withFleet(options, async (fleet) => {
    const limit = options.limit === undefined ? 20 : parseNumberOption(options.limit);
    const runs = await fleet.list({ limit: Number.isSafeInteger(limit) && limit > 0 ? limit : 20 });
    const workers = await fleet.workers();
    if (options.json === true) {
      process.stdout.write(`${JSON.stringify({ runs, workers }, null, 2)}\n`);
      return 0;
    }
    if (runs.length === 0 && workers.length === 0) {
      process.stdout.write('no runs, no workers\n');
      return 0;
    }
    for (const run of runs) process.stdout.write(`${statusLine(run)}\n`);
    for (const worker of workers) {
      const state = worker.expired ? 'lease expired' : 'live';
      process.stdout.write(`worker ${worker.workerId}: ${state} (pid ${worker.pid} on ${worker.hostname})\n`);
    }
    return 0;
  });
}
