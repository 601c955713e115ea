import { killLiveGroups } from '../../process/live-groups.js';
import { EXIT } from './exit-codes.js';

/** What the CLI does on the first and the second interrupt. */
export interface InterruptHandlers {
  /** First SIGINT or SIGTERM: cancel the run and let it wait for the child to stop. */
  cancel(signal: NodeJS.Signals): void;
  /** A second one: stop waiting. */
  force(signal: NodeJS.Signals): void;
}

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

/**
 * Traps SIGINT and SIGTERM for the length of a run: the first cancels, any later one forces. Returns the release,
 * which restores Node's default handling.
 */
export function trapInterrupts(handlers: InterruptHandlers): () => void {
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts += 1;
    if (interrupts === 1) handlers.cancel(signal);
    else handlers.force(signal);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  return () => {
    for (const signal of SIGNALS) process.off(signal, onSignal);
  };
}

/**
 * Traps interrupts for a batch (or one landing of it): the first runs `cancel`, which lets every loop and merge stop;
 * a second kills every agent and verify command at once and exits 130. Returns the release.
 */
export function trapBatchInterrupts(cancel: () => void): () => void {
  return trapInterrupts({
    cancel,
    force() {
      killLiveGroups();
      process.exit(EXIT.cancelled);
    },
  });
}

/**
 * How long a forced stop waits, after SIGKILLing the children, for the run to settle on its own: long enough for the
 * provider to see its child die and remove the round's temporary files, short enough to feel immediate.
 */
export const FORCED_SETTLE_MS = 500;
