import { fleetWaitingText } from '../../contract/fleet-answer-messages.js';
import { runSandboxText } from '../../contract/fleet-sandbox-messages.js';
import { usageText } from '../../contract/usage.js';
import type { FleetRunStatus } from '../../fleet/client.js';
import { stripControlToLine, terminalJson } from '../../render/terminal-text.js';
import { type FleetOptions, withFleet } from './fleet-cli.js';

/**
 * One line of a run's status: id, state, worker, rounds done (and whether they ran sandboxed) and, once its agents
 * said, what they used; why it failed or was refused, or its error; the question it waits on (`--ask`). Every value comes from the fleet's database, which anyone who can write to it
 * fills: each is printed without control characters.
 */
export function statusLine(status: FleetRunStatus): string {
  const worker = status.workerId === undefined || status.state === 'queued' ? '' : ` on ${status.workerId}`;
  const done = `${status.roundsDone} round${status.roundsDone === 1 ? '' : 's'} done`;
  const sandboxed = runSandboxText(status.sandbox, status.roundsDone);
  const rounds = sandboxed === '' ? done : `${done}, ${sandboxed}`;
  const used = status.usage === undefined ? '' : usageText(status.usage);
  const spent = used === '' ? '' : `, used ${used}`;
  const why = status.outcome?.ok === false ? status.outcome.failure.message : status.error;
  const error = why === undefined || status.state === 'cancelled' ? '' : `: ${why}`;
  const asked = status.question;
  const waiting =
    asked === undefined ? '' : `, ${fleetWaitingText(asked.round, asked.deadline, asked.question)}`;
  return stripControlToLine(`${status.runId} ${status.state}${worker}, ${rounds}${spent}${error}${waiting}`);
}

/**
 * `ralph status <id>`: prints the run's status line (or JSON); exit 0, or 1 when there is no such run. A local batch
 * (`ralph batch`'s id in this repository, or its batch.jsonl) is read from its recording, no fleet needed.
 */
export async function statusCommand(id: string, options: FleetOptions & { json?: boolean }): Promise<number> {
  const { localBatchStatus } = await import('./batch-local-status.js');
  const local = await localBatchStatus(id, options.json === true);
  if (local !== null) return local;
  return withFleet(options, async (fleet) => {
    const { batchNamed, printBatchStatus } = await import('./batch-status-command.js');
    const batch = await batchNamed(fleet, id);
    if (batch !== null) return printBatchStatus(batch, options.json === true, statusLine);
    const status = await fleet.status(id);
    process.stdout.write(`${options.json === true ? terminalJson(status) : statusLine(status)}\n`);
    return 0;
  });
}
