import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';
import {
  isRunning,
  type RalphProcess,
  ralph,
  startWorker,
  stopWorker,
  submitRun,
  useFleetScene,
  waitFor,
} from './harness.js';

// A fleet run is one trace whichever workers run it: a worker that takes a run over after its first worker was
// killed writes into the trace the first one began.

const scene = useFleetScene();
const { databaseFor, workspace } = scene;
const receivers: OtlpReceiver[] = [];

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function worker(url: string, id: string, env: NodeJS.ProcessEnv): Promise<RalphProcess> {
  const started = await startWorker(url, id, { env });
  scene.processes.push(started);
  return started;
}

/** The spans of the agents of `round`. */
const childrenOf = (spans: ReceivedSpan[], round: number): ReceivedSpan[] =>
  spans.filter((span) => span.name === 'invoke_agent command' && span.attributes['ralph.round'] === round);

describe('a traced fleet run keeps one trace across a worker killed with SIGKILL', () => {
  it('the worker that takes the run over continues the trace the dead one began', async () => {
    const otlp = await startOtlpReceiver();
    receivers.push(otlp);
    const url = databaseFor('traced');
    const ws = await workspace();
    const env = {
      TMPDIR: ws.dir,
      FLEET_AGENT_HOLD_ROUND: '3',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      // Spans leave within 100 ms of their end, so the first worker's are out before it is killed.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    const alpha = await worker(url, 'alpha', env);
    const submitted = await submitRun(url, ws.dir);
    expect(submitted.code, submitted.stderr).toBe(0);
    const id = submitted.stdout.trim();
    await waitFor(() => ws.holders(3).length === 1, "round 3's agent");
    await waitFor(() => childrenOf(otlp.spans(), 2).length === 1, "round 2's agent span from alpha");
    const beta = await worker(url, 'beta', env);
    alpha.child.kill('SIGKILL');
    await alpha.exited;

    await waitFor(() => ws.startsOf(3).length === 2, 'beta to start round 3 again');
    await ws.release();
    const waited = await ralph(['wait', id, '--json', '--database-url', url]);
    expect(waited.code).toBe(0);
    await stopWorker(beta);

    const spans = otlp.spans();
    const traceIds = new Set(spans.map((span) => span.traceId));
    expect(traceIds.size).toBe(1);
    // Rounds 1 and 2 ran on alpha, round 3 (again), 4 and 5 on beta: every agent's span is in the trace.
    for (const round of [1, 2, 3, 4, 5]) expect(childrenOf(spans, round), `round ${round}`).toHaveLength(1);
    const runs = spans.filter((span) => span.name === 'invoke_agent ralph');
    expect(runs).toHaveLength(1); // beta's: alpha died before its run span ended.
    const run = runs[0] as ReceivedSpan;
    expect(run.parentSpanId).toBe('');
    expect(run.attributes).toMatchObject({
      'ralph.run.id': id,
      'ralph.status': 'complete',
      'ralph.rounds': 5,
    });
    // Every span names the run by the id ralph submit printed, its agents' spans too.
    for (const span of spans)
      if ('ralph.run.id' in span.attributes) expect(span.attributes['ralph.run.id'], span.name).toBe(id);
    for (const round of [3, 4, 5]) {
      const child = childrenOf(spans, round)[0] as ReceivedSpan;
      const roundSpan = spans.find((span) => span.spanId === child.parentSpanId);
      expect(roundSpan?.name).toBe(`ralph.round ${round}`);
      expect(roundSpan?.parentSpanId).toBe(run.spanId);
    }
    // The agents were started with the trace's TRACEPARENT, alpha's as beta's.
    const [, again] = ws.startsOf(3);
    const [firstAgent] = ws.startsOf(1);
    for (const [round, pid] of [
      [1, firstAgent],
      [3, again],
    ] as const) {
      const traceparent = readFileSync(join(ws.dir, `traceparent-${round}.${pid}`), 'utf8');
      expect(traceparent).toBe(
        `00-${run.traceId}-${(childrenOf(spans, round)[0] as ReceivedSpan).spanId}-01`,
      );
    }
    expect(isRunning(alpha.pid)).toBe(false);
  }, 120_000);
});
