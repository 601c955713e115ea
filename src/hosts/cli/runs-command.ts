import { stripControlToLine, terminalJson } from '../../render/terminal-text.js';
import { parseNumberOption } from '../../run/numbers.js';
import { type FleetOptions, withFleet } from './fleet-cli.js';
import { statusLine } from './status-command.js';

/** One line of a worker: its id, whether its lease is live, its pid and host (database values, without controls). */
export function workerLine(worker: {
  workerId: string;
  expired: boolean;
  pid: number;
  hostname: string;
}): string {
  const state = worker.expired ? 'lease expired' : 'live';
  return stripControlToLine(`worker ${worker.workerId}: ${state} (pid ${worker.pid} on ${worker.hostname})`);
}

/** `ralph runs`: the latest runs, one status line each, newest first, then the workers and their leases. */
export function runsCommand(options: FleetOptions & { json?: boolean; limit?: string }): Promise<number> {
  return withFleet(options, async (fleet) => {
    const limit = options.limit === undefined ? 20 : parseNumberOption(options.limit);
    const runs = await fleet.list({ limit: Number.isSafeInteger(limit) && limit > 0 ? limit : 20 });
    const workers = await fleet.workers();
    if (options.json === true) {
      process.stdout.write(`${terminalJson({ runs, workers })}\n`);
      return 0;
    }
    if (runs.length === 0 && workers.length === 0) {
      process.stdout.write('no runs, no workers\n');
      return 0;
    }
    for (const run of runs) process.stdout.write(`${statusLine(run)}\n`);
    for (const worker of workers) process.stdout.write(`${workerLine(worker)}\n`);
    return 0;
  });
}
