import { usageText } from '../../contract/usage.js';
import type { FleetRunStatus } from '../fleet/fleet.js';
import { type FleetOptions, withFleet } from './fleet-cli.js';

/** One line of a run's status: id, state, worker, rounds done and, once its agents said, what they used. */
export function statusLine(status: FleetRunStatus): string {
  const worker = status.workerId === undefined || status.state === 'queued' ? '' : ` on ${status.workerId}`;
  const rounds = `${status.roundsDone} round${status.roundsDone === 1 ? '' : 's'} done`;
  const used = status.usage === undefined ? '' : usageText(status.usage);
  const spent = used === '' ? '' : `, used ${used}`;
  const error = status.error === undefined ? '' : `: ${status.error}`;
  return `${status.runId} ${status.state}${worker}, ${rounds}${spent}${error}`;
}

/** `ralph status <id>`: prints the run's status line (or JSON); exit 0, or 1 when there is no such run. */
export function statusCommand(id: string, options: FleetOptions & { json?: boolean }): Promise<number> {
  return withFleet(options, async (fleet) => {
    const status = await fleet.status(id);
    process.stdout.write(`${options.json === true ? JSON.stringify(status, null, 2) : statusLine(status)}\n`);
    return 0;
  });
}
