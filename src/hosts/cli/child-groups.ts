import type { ChildRequest, ChildStartOptions, SubagentProvider } from '../../contract/types.js';

/** A provider whose running children the CLI can kill outright. */
export interface TrackedProvider {
  provider: SubagentProvider;
  /** SIGKILLs every running child, with its process group where it leads one. */
  killAll(): void;
}

const pidOf = (run: unknown): number | undefined => {
  const pid = (run as { pid?: unknown }).pid;
  return typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
};

const sigkill = (target: number): boolean => {
  try {
    process.kill(target, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
};

/**
 * Wraps a provider so the CLI knows the process of each running child (process providers put it on the child run
 * as `pid`, the leader of the child's own process group). The forced exit of a second Ctrl-C kills them, so that
 * leaving early never leaves an agent running. Everything else passes through untouched.
 */
export function trackChildGroups(inner: SubagentProvider): TrackedProvider {
  const running = new Set<number>();
  const provider: SubagentProvider = {
    name: inner.name,
    capabilities: inner.capabilities,
    async start(request: ChildRequest, options: ChildStartOptions) {
      const run = await inner.start(request, options);
      const pid = pidOf(run);
      if (pid !== undefined) {
        running.add(pid);
        run.report.then(
          () => running.delete(pid),
          () => running.delete(pid),
        );
      }
      return run;
    },
  };
  return {
    provider,
    killAll() {
      for (const pid of running) {
        if (!sigkill(-pid)) sigkill(pid);
      }
    },
  };
}
