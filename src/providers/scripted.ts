import type {
  ChildRequest,
  ChildRun,
  ChildStartOptions,
  ProviderCapabilities,
  SubagentProvider,
} from '../contract/types.js';

/** One scripted round: what the in-process child does. */
export type ScriptedStep =
  /** Reports this raw structured output (after an optional delay). */
  | { report: unknown; delayMs?: number }
  /** Fails as an ordinary child failure, before producing a report. */
  | { childError: string; delayMs?: number }
  /** Fails to start: a provider-start failure. */
  | { startError: string; delayMs?: number }
  /** Never reports; settles when aborted, or never when `ignoreAbort` is set. */
  | { hang: true; ignoreAbort?: boolean; stopDelayMs?: number }
  /** Any behaviour: the resolved value is the raw report, a throw is a child failure. */
  | ((request: ChildRequest, signal: AbortSignal) => unknown);

/** Options of a scripted provider. */
export interface ScriptedProviderOptions {
  name?: string;
  capabilities?: Partial<ProviderCapabilities>;
  /** What happens when the script runs out of steps: repeat the last step (default) or fail the start. */
  whenExhausted?: 'repeat-last' | 'fail';
}

/** A scripted provider with a record of what it was asked and what is still running. */
export interface ScriptedProvider extends SubagentProvider {
  /** Every request it was given, in order. */
  readonly requests: ChildRequest[];
  /** Children started and not yet settled. */
  readonly running: number;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/**
 * An in-process provider that plays a script, one step per round: for tests, examples and replay. Its children
 * are fresh by construction (they see only the request), so it declares structured output and no inherited context
 * unless told otherwise.
 */
export function createScriptedProvider(
  steps: ScriptedStep[],
  options: ScriptedProviderOptions = {},
): ScriptedProvider {
  const requests: ChildRequest[] = [];
  let running = 0;
  let next = 0;

  const stepFor = (): ScriptedStep | undefined => {
    const step = steps[Math.min(next, steps.length - 1)];
    if (next >= steps.length && options.whenExhausted === 'fail') return undefined;
    next += 1;
    return step;
  };

  async function play(step: ScriptedStep, request: ChildRequest, signal: AbortSignal): Promise<unknown> {
    if (typeof step === 'function') return step(request, signal);
    if ('hang' in step) {
      if (step.ignoreAbort) return new Promise<never>(() => {});
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      if (step.stopDelayMs) await sleep(step.stopDelayMs);
      throw new Error('child aborted');
    }
    if (step.delayMs) await sleep(step.delayMs, signal);
    if ('childError' in step) throw new Error(step.childError);
    if ('report' in step) return step.report;
    throw new Error('unreachable scripted step');
  }

  return {
    name: options.name ?? 'scripted',
    capabilities: { structuredOutput: true, inheritsParentContext: false, ...options.capabilities },
    requests,
    get running() {
      return running;
    },
    async start(request: ChildRequest, { signal }: ChildStartOptions): Promise<ChildRun> {
      requests.push(request);
      const step = stepFor();
      if (step === undefined) throw new Error('the script has no step left');
      if (typeof step === 'object' && 'startError' in step) {
        if (step.delayMs) await sleep(step.delayMs, signal);
        throw new Error(step.startError);
      }
      running += 1;
      const report = play(step, request, signal).finally(() => {
        running -= 1;
      });
      report.catch(() => {});
      return { id: `${request.runId}-r${request.round}`, report };
    },
  };
}
