import { type FleetRunState, isSettledState } from '../../fleet/client.js';
import { type FleetOptions, withFleet } from './fleet-cli.js';

/** What `ralph cancel` and the dashboard say of a run that ended before the cancel: it is left as it ended. */
export const alreadyEnded = (id: string, state: FleetRunState): string =>
  `ralph: ${id} has already ended (${state}): nothing to cancel`;

/**
 * `ralph cancel <id>`: cancels the run; the worker running it stops its child within about a second. A run that
 * has already ended is left as it is, and said so. Given a batch's
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
    // A run that has ended stays as it ended: saying "cancelled" of it would be untrue.
    const { state } = await fleet.status(id);
    if (isSettledState(state)) {
      process.stderr.write(`${alreadyEnded(id, state)}\n`);
      return 0;
    }
    await fleet.cancel(id);
    process.stderr.write(`ralph: cancelled ${id}\n`);
    return 0;
  });
}
