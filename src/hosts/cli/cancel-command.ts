import { isSettledState } from '../../fleet/client.js';
import { type FleetOptions, withFleet } from './fleet-cli.js';

/**
 * `ralph cancel <id>`: cancels the run; the worker running it stops its child within about a second. Given a batch's
 * id (`ralph submit --batch`), it cancels each of its task runs not settled yet (a landing under way finishes).
 */
export function cancelCommand(id: string, options: FleetOptions): Promise<number> {
  return withFleet(options, async (fleet) => {
    const { batchNamed } = await import('./batch-status-command.js');
    const batch = await batchNamed(fleet, id);
    if (batch !== null) {
      const open = batch.tasks.filter(({ run }) => !isSettledState(run.state));
      for (const { run } of open) await fleet.cancel(run.runId);
      process.stderr.write(`ralph: cancelled batch ${id} (${open.length} task run(s) not settled yet)\n`);
      return 0;
    }
    await fleet.cancel(id);
    process.stderr.write(`ralph: cancelled ${id}\n`);
    return 0;
  });
}
