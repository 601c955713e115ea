import { DEFAULT_MAX_RESULT_CHARS } from '../../contract/config.js';
import { RalphError } from '../../contract/errors.js';
import { WORKFLOW_CANCELLED } from '../../contract/messages.js';
import { renderResultCard } from '../../render/cards.js';
import { EXIT, exitCodeForStatus } from './exit-codes.js';
import { type FleetOptions, withFleet } from './fleet-cli.js';
import { reportFailure } from './report-failure.js';

/** The options of `ralph wait`. */
export interface WaitOptions extends FleetOptions {
  json?: boolean;
}

/**
 * `ralph wait <id>`: waits for the run to end, then prints and exits as `ralph run` would have: the result (or its
 * envelope as JSON) and the status's exit code, or the failure and its code; a cancelled run exits 130.
 */
export function waitCommand(id: string, options: WaitOptions): Promise<number> {
  const json = options.json === true;
  return withFleet(options, async (fleet) => {
    const status = await fleet.wait(id);
    const outcome = status.outcome;
    if (outcome?.ok === true) {
      const text = json
        ? JSON.stringify(outcome.envelope, null, 2)
        : renderResultCard({}, outcome.envelope, DEFAULT_MAX_RESULT_CHARS).text;
      process.stdout.write(`${text}\n`);
      return exitCodeForStatus(outcome.envelope.result.status);
    }
    if (outcome?.ok === false) return reportFailure(new RalphError(outcome.failure, { runId: id }), json);
    if (status.state === 'cancelled') {
      return reportFailure(
        new RalphError({ code: 'cancelled', message: WORKFLOW_CANCELLED }, { runId: id }),
        json,
      );
    }
    process.stderr.write(`ralph: fleet run ${id} stopped in error: ${status.error ?? 'unknown error'}\n`);
    return EXIT.failed;
  });
}
