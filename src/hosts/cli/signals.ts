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
 * How long a forced stop waits, after SIGKILLing the children, for the run to settle on its own: long enough for the
 * provider to see its child die and remove the round's temporary files, short enough to feel immediate.
 */
export const FORCED_SETTLE_MS = 500;
