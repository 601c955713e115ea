import { DEFAULT_MAX_RESULT_CHARS } from '../../contract/config.js';
import { errorText } from '../../contract/error-text.js';
import { RalphError } from '../../contract/errors.js';
import { WORKFLOW_CANCELLED } from '../../contract/messages.js';
import { usageText } from '../../contract/usage.js';
import { isSettledState } from '../../fleet/client.js';
import { renderResultCard } from '../../render/cards.js';
import { stripControl, terminalJson } from '../../render/terminal-text.js';
import { EXIT, exitCodeForStatus } from './exit-codes.js';
import { anyWorkerLive, type FleetOptions, NO_LIVE_WORKER, withFleet } from './fleet-cli.js';
import { printFailure } from './print-failure.js';
import { statusLine } from './status-command.js';

/** The options of `ralph wait`. */
export interface WaitOptions extends FleetOptions {
  json?: boolean;
}

/**
 * `ralph wait <id>`: waits for the run to end, then prints and exits as `ralph run` would have: the result (or its
 * envelope as JSON) and the status's exit code, or the failure and its code; a cancelled run exits 130. A run not
 * settled yet gets its status line on stderr first; an outage of the database is reported there, and waited out.
 */
export function waitCommand(id: string, options: WaitOptions): Promise<number> {
  const json = options.json === true;
  return withFleet(options, async (fleet) => {
    const { batchNamed, waitBatch } = await import('./batch-status-command.js');
    const batch = await batchNamed(fleet, id);
    if (batch !== null) return waitBatch(fleet, batch, json, statusLine);
    const first = await fleet.status(id);
    if (!isSettledState(first.state)) process.stderr.write(`ralph wait: ${statusLine(first)}\n`);
    if (first.state === 'queued' && !(await anyWorkerLive(fleet)))
      process.stderr.write(`ralph wait: ${NO_LIVE_WORKER}\n`);
    const status = await fleet.wait(id, {
      onDatabase(event, error) {
        process.stderr.write(
          event === 'lost'
            ? `ralph wait: lost the database (${errorText(error)}); retrying, the run goes on\n`
            : 'ralph wait: the database is back\n',
        );
      },
    });
    const outcome = status.outcome;
    const used = status.usage === undefined ? '' : usageText(status.usage);
    if (outcome?.ok === true) {
      // As `ralph run` ends a settled run's progress: what every worker's rounds used, in all.
      if (used !== '') process.stderr.write(`ralph: used in all: ${used}\n`);
      const text = json
        ? terminalJson(outcome.envelope)
        : renderResultCard({}, outcome.envelope, DEFAULT_MAX_RESULT_CHARS).text;
      process.stdout.write(`${json ? text : stripControl(text)}\n`);
      return exitCodeForStatus(outcome.envelope.result.status);
    }
    if (outcome?.ok === false) return printFailure(new RalphError(outcome.failure, { runId: id }), json);
    if (status.state === 'cancelled') {
      return printFailure(
        new RalphError({ code: 'cancelled', message: WORKFLOW_CANCELLED }, { runId: id }),
        json,
      );
    }
    process.stderr.write(
      stripControl(`ralph: fleet run ${id} stopped in error: ${status.error ?? 'unknown error'}\n`),
    );
    return EXIT.failed;
  });
}
