import type { RalphSandbox } from '../../src/contract/sandbox.js';
import type {
  ChildRequest,
  ChildRun,
  ChildStartOptions,
  ProviderCapabilities,
  SubagentProvider,
} from '../../src/contract/types.js';
import type { RalphUsage } from '../../src/contract/usage.js';

/** A promise the test settles by hand. */
interface Deferred<T> {
  promise: Promise<T>;
  settled: boolean;
  resolve(value: T): void;
  reject(error: Error): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // The bridge awaits every promise it is given; one it is never given must not count as unhandled.
  promise.catch(() => {});
  const d: Deferred<T> = {
    promise,
    settled: false,
    resolve(value) {
      d.settled = true;
      resolve(value);
    },
    reject(error) {
      d.settled = true;
      reject(error);
    },
  };
  return d;
}

/** One child as the provider tracks it: the start the provider was asked for, and the report once it started. */
export interface ControlledChild {
  request: ChildRequest;
  signal: AbortSignal;
  terminationGraceMs: number;
  /** The run's sandbox it was to start in; absent: none. */
  sandbox?: RalphSandbox;
  start: Deferred<ChildRun>;
  report: Deferred<unknown> | null;
  /** What the child says it used, once it reported (null: nothing). */
  usage: RalphUsage | null;
}

/** A provider whose starts and children do exactly what the test says, when it says it. */
export interface ControllableProvider extends SubagentProvider {
  readonly children: readonly ControlledChild[];
  /** Children whose start resolved: the agents the provider really started. */
  readonly started: number;
  /** Starts or children not settled yet. */
  readonly running: number;
  /** The provider starts the latest child under `childId`. */
  startChild(childId: string): void;
  /** The provider fails to start the latest child. */
  failStart(message: string): void;
  /** The latest child hands back `output` as its structured output, saying it used `usage`. */
  report(output: unknown, usage?: RalphUsage | null): void;
  /** The latest child fails before producing a report. */
  failChild(message: string): void;
  /** The latest child fails with this error (a usage limit), saying it used `usage`. */
  failChildWith(error: Error, usage?: RalphUsage | null): void;
  /** The latest child, aborted, stops: its pending start or its report rejects. */
  stopAborted(): void;
  /** Settles everything still pending, as a child ignoring its abort would do at some later point. */
  settleAll(): void;
}

/** Creates a provider under `name` declaring `capabilities`, driven by the test. */
export function createControllableProvider(
  name: string,
  capabilities: ProviderCapabilities,
): ControllableProvider {
  const children: ControlledChild[] = [];

  const latest = (): ControlledChild => {
    const child = children.at(-1);
    if (child === undefined) throw new Error('the provider was never asked to start a child');
    return child;
  };
  const latestReport = (): Deferred<unknown> => {
    const { report } = latest();
    if (report === null) throw new Error('the latest child was never started');
    return report;
  };

  return {
    name,
    capabilities,
    children,
    get started() {
      return children.filter((c) => c.report !== null).length;
    },
    get running() {
      return children.filter((c) => !c.start.settled || (c.report !== null && !c.report.settled)).length;
    },
    start(
      request: ChildRequest,
      { signal, terminationGraceMs, sandbox }: ChildStartOptions,
    ): Promise<ChildRun> {
      const child: ControlledChild = {
        request,
        signal,
        terminationGraceMs,
        ...(sandbox === undefined ? {} : { sandbox }),
        start: deferred(),
        report: null,
        usage: null,
      };
      children.push(child);
      return child.start.promise;
    },
    startChild(childId) {
      const child = latest();
      child.report = deferred();
      child.start.resolve({ id: childId, report: child.report.promise, usage: () => child.usage });
    },
    failStart(message) {
      latest().start.reject(new Error(message));
    },
    report(output, usage = null) {
      latest().usage = usage;
      latestReport().resolve(output);
    },
    failChild(message) {
      latestReport().reject(new Error(message));
    },
    failChildWith(error, usage = null) {
      latest().usage = usage;
      latestReport().reject(error);
    },
    stopAborted() {
      const child = latest();
      if (!child.signal.aborted) throw new Error('asked to stop a child that was never aborted');
      if (child.report === null) child.start.reject(new Error('aborted before the child started'));
      else child.report.reject(new Error('child stopped after its abort'));
    },
    settleAll() {
      for (const child of children) {
        if (!child.start.settled) child.start.reject(new Error('abandoned start settled at cleanup'));
        if (child.report !== null && !child.report.settled)
          child.report.reject(new Error('abandoned child settled at cleanup'));
      }
    },
  };
}
