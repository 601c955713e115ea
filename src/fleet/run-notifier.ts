import { errorText } from '../contract/error-text.js';
import type { DeliveryPolicy } from '../notify/delivery-policy.js';
import { createNotifier, type Notifier, type NotifyTargets } from '../notify/notifier.js';
import { notifyUrl } from '../notify/notify-url.js';
import type { FleetRunInput } from './run-input.js';

/** How a worker notifies: its own targets, and whether it also POSTs to the URLs a run was submitted with. */
export interface WorkerNotify {
  /** The worker's own `--notify` URLs and `--notify-command` commands: every run it takes notifies them. */
  targets: NotifyTargets;
  policy?: DeliveryPolicy;
  /** Whether a run's own URLs (`ralph submit --notify`) are POSTed to: a submitter's choice of where to send. */
  allowSubmitted: boolean;
}

/** The http(s) URLs a run was submitted with, as stored; anything else in the field is reported and left out. */
function submittedUrls(input: FleetRunInput, refused: (problem: string) => void): URL[] {
  const stored = input.notify?.urls;
  if (stored === undefined || stored === null) return [];
  if (!Array.isArray(stored)) {
    refused('its notify URLs are not a list');
    return [];
  }
  const urls: URL[] = [];
  for (const text of stored) {
    try {
      urls.push(notifyUrl(String(text)));
    } catch (error) {
      refused(errorText(error));
    }
  }
  return urls;
}

/**
 * The notifier of one fleet run on a worker: the worker's own targets, and the run's submitted URLs when the worker
 * allows them (else `say` gets one line that they are not sent). A submitted command is never run: `ralph submit`
 * refuses one, and the stored input has no field for it. `warn` gets the line of a notification not delivered.
 */
export function fleetRunNotifier(
  input: FleetRunInput,
  notify: WorkerNotify | undefined,
  say: (text: string) => void,
  warn: (line: string) => void,
): Notifier {
  const own = notify?.targets ?? { urls: [], commands: [] };
  const submitted = submittedUrls(input, (problem) => say(`a notify URL is left out: ${problem}`));
  if (submitted.length > 0 && notify?.allowSubmitted !== true)
    say(
      `its ${submitted.length} notify URL(s) are not sent to (start the worker with --allow-notify to send ` +
        "a run's notifications where its submitter chose)",
    );
  const urls = notify?.allowSubmitted === true ? [...own.urls, ...submitted] : own.urls;
  return createNotifier(
    { urls, commands: own.commands },
    { warn, ...(notify?.policy === undefined ? {} : { policy: notify.policy }) },
  );
}
