import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type ChildRun,
  createProviderRegistry,
  createRalphTool,
  KILL_MARGIN_MS,
  type RalphTool,
  type ScriptedStep,
  type SubagentProvider,
} from '../../src/index.js';
import { completeReport, continueReport } from '../support/round-reports.js';
import { agent, rejection, scriptedTool } from '../support/tool.js';

/** A provider whose children take `stopMs` to stop after an abort, and which records when each stopped. */
function slowStoppingProvider(options: { startMs?: number; stopMs: number }) {
  const log: string[] = [];
  const provider: SubagentProvider = {
    name: 'slow',
    capabilities: { structuredOutput: true, inheritsParentContext: false },
    async start(request, { signal }): Promise<ChildRun> {
      log.push(`start ${request.round}`);
      if (options.startMs) await new Promise((r) => setTimeout(r, options.startMs));
      const report = new Promise<unknown>((_, reject) => {
        const stop = () =>
          setTimeout(() => {
            log.push(`stopped ${request.round}`);
            reject(new Error('aborted'));
          }, options.stopMs);
        if (signal.aborted) stop();
        else signal.addEventListener('abort', stop, { once: true });
      });
      report.catch(() => {});
      return { id: `child-${request.round}`, report };
    },
  };
  return { provider, log };
}

/** Runs a call and stops its turn once the child of `round` has started. */
function cancelOnceChildStarted(tool: RalphTool, round: number) {
  const controller = new AbortController();
  return tool.execute(
    { objective: 'x' },
    {
      agent,
      signal: controller.signal,
      onProgress: (event) => {
        if (event.type === 'child-started' && event.round === round) setTimeout(() => controller.abort(), 10);
      },
    },
  );
}

describe('stopping the turn cancels the loop', () => {
  it('before the run starts: Ralph workflow was cancelled, and no child is started', async () => {
    const { tool, provider } = scriptedTool([{ report: completeReport() }]);
    const error = await rejection(tool.execute({ objective: 'x' }, { agent, signal: AbortSignal.abort() }));
    expect(error.message).toBe('Ralph workflow was cancelled');
    expect(error.code).toBe('cancelled');
    expect(provider.requests).toHaveLength(0);
  });

  it('while the child is starting: waits for the started child to stop', async () => {
    const { provider, log } = slowStoppingProvider({ startMs: 50, stopMs: 50 });
    const providers = createProviderRegistry();
    providers.register(provider);
    const tool = createRalphTool({ subagentProvider: 'slow' }, { providers });
    const controller = new AbortController();
    const call = tool.execute({ objective: 'x' }, { agent, signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    const error = await rejection(call);
    log.push('settled');
    expect(error.message).toBe('Ralph workflow was cancelled');
    expect(log).toEqual(['start 1', 'stopped 1', 'settled']);
  });

  it('while the start itself fails on the abort: settles cancelled', async () => {
    const { tool } = scriptedTool([{ startError: 'never reached', delayMs: 10_000 }]);
    const controller = new AbortController();
    const call = tool.execute({ objective: 'x' }, { agent, signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    expect((await rejection(call)).message).toBe('Ralph workflow was cancelled');
  });

  it('while awaiting a report: result settles only after the child has stopped', async () => {
    const { tool, provider } = scriptedTool([{ report: continueReport() }, { hang: true, stopDelayMs: 100 }]);
    const error = await rejection(cancelOnceChildStarted(tool, 2));
    expect(provider.running).toBe(0);
    expect(error.message).toBe('Ralph workflow was cancelled');
    expect(error.round).toBe(2);
    expect(error.lastHandoff).toEqual(continueReport());
  });

  it('ignores an abort after the run settled', async () => {
    const { tool } = scriptedTool([{ report: completeReport() }]);
    const controller = new AbortController();
    const envelope = await tool.execute({ objective: 'x' }, { agent, signal: controller.signal });
    controller.abort();
    expect(envelope.result.status).toBe('complete');
  });
});

describe('how long a cancelled run waits for its child', () => {
  // The clock is simulated, so the bound is checked to the millisecond without waiting for it; promises still run.
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Starts a call on a simulated clock, cancels it once its child runs, and watches whether it settled. */
  async function cancelOnSimulatedClock(step: ScriptedStep, terminationGraceMs: number) {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { tool, provider } = scriptedTool([step], { terminationGraceMs });
    const controller = new AbortController();
    let childStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      childStarted = resolve;
    });
    const watched = { settled: false };
    const call = tool.execute(
      { objective: 'x' },
      {
        agent,
        signal: controller.signal,
        onProgress: (event) => {
          if (event.type === 'child-started') childStarted();
        },
      },
    );
    const settled = () => {
      watched.settled = true;
    };
    call.then(settled, settled);
    await started;
    controller.abort();
    /** Moves the simulated clock on by `ms`, then lets every promise reaction that follows run. */
    const advance = async (ms: number) => {
      await vi.advanceTimersByTimeAsync(ms);
      await new Promise<void>((resolve) => setImmediate(resolve));
    };
    return { call, provider, watched, advance };
  }

  it.each([0, 250, 5_000])(
    'abandons an in-process child that ignores its abort exactly grace + KILL_MARGIN_MS after the cancel (grace %i ms)',
    async (grace) => {
      const { call, provider, watched, advance } = await cancelOnSimulatedClock(
        { hang: true, ignoreAbort: true },
        grace,
      );
      await advance(grace + KILL_MARGIN_MS - 1);
      expect(watched.settled, '1 ms before the bound').toBe(false);
      await advance(1);
      expect(watched.settled, 'at the bound').toBe(true);
      const error = await rejection(call);
      expect(error.message).toBe('Ralph workflow was cancelled');
      expect(provider.running, 'the abandoned child').toBe(1);
    },
  );

  it('waits for an in-process child that stops after the grace but within the bound', async () => {
    const grace = 1_000;
    const stopsAfter = grace + KILL_MARGIN_MS - 1;
    const { call, provider, watched, advance } = await cancelOnSimulatedClock(
      { hang: true, stopDelayMs: stopsAfter },
      grace,
    );
    await advance(stopsAfter - 1);
    expect(watched.settled, '1 ms before the child stops').toBe(false);
    expect(provider.running).toBe(1);
    await advance(1);
    expect(watched.settled, 'once the child stopped').toBe(true);
    expect((await rejection(call)).message).toBe('Ralph workflow was cancelled');
    expect(provider.running).toBe(0);
  });
});
