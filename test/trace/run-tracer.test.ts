import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import {
  createProviderRegistry,
  createRalphTool,
  createRunTracer,
  createScriptedProvider,
} from '../../src/index.js';
import { completeReport, continueReport } from '../support/round-reports.js';
import { agent } from '../support/tool.js';

// A library user traces a run with a tracer of their own: createRunTracer over it, its provider wrapped, its
// onProgress fed, and its outcome given when the run is over.

/** A two-round scripted run traced by createRunTracer (with `options`) into an in-memory exporter; its spans. */
async function tracedTwoRounds(options?: Parameters<typeof createRunTracer>[1]) {
  const exporter = new InMemorySpanExporter();
  const otel = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const runTracer = createRunTracer(
    {
      tracer: otel.getTracer('my-app'),
      api: { trace, ROOT_CONTEXT },
      propagator: new W3CTraceContextPropagator(),
    },
    options,
  );
  const providers = createProviderRegistry();
  const provider = createScriptedProvider([{ report: continueReport() }, { report: completeReport() }]);
  providers.register(runTracer.traceProvider(provider));
  const tool = createRalphTool({ subagentProvider: provider.name }, { providers });
  const envelope = await tool.execute(
    { objective: 'Finish in two rounds' },
    { agent, onProgress: runTracer.onProgress },
  );
  runTracer.finish({ envelope });
  return { envelope, spans: exporter.getFinishedSpans() };
}

describe('createRunTracer traces a library run with the tracer it is given', () => {
  it('a run span over a span per round, each over its child', async () => {
    const { envelope, spans } = await tracedTwoRounds();
    const byName = (name: string) => spans.filter((span) => span.name === name);
    const [run] = byName('invoke_agent ralph');
    expect(run?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'ralph.run.id': envelope.runId,
      'ralph.status': 'complete',
      'ralph.rounds': 2,
    });
    for (const round of [1, 2]) {
      const [roundSpan] = byName(`ralph.round ${round}`);
      expect(roundSpan?.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
      const children = byName('invoke_agent scripted').filter(
        (span) => span.attributes['ralph.round'] === round,
      );
      expect(children).toHaveLength(1);
      expect(children[0]?.parentSpanContext?.spanId).toBe(roundSpan?.spanContext().spanId);
    }
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
  });

  it("a host's own run id (a fleet's run id) is every span's ralph.run.id, the children's too", async () => {
    const { spans } = await tracedTwoRounds({ runId: 'fleet-run-7' });
    expect(spans.filter((span) => span.name === 'invoke_agent scripted')).toHaveLength(2);
    for (const span of spans) expect(span.attributes['ralph.run.id'], span.name).toBe('fleet-run-7');
  });
});
