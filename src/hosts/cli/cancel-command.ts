import { type FleetOptions, withFleet } from './fleet-cli.js';

/** `ralph cancel <id>`: cancels the run; the worker running it stops its child within about a second. */
export function cancelCommand(id: string, options: FleetOptions): Promise<number> {
  return withFleet(options, async (fleet) => {
    await fleet.cancel(id);
    process.stderr.write(`ralph: cancelled ${id}\n`);
    return 0;
  });
}
