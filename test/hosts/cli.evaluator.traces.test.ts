import { afterEach, describe, expect, it } from 'vitest';
import { evaluatorChangedWorkspace } from '../../src/contract/evaluator-messages.js';
import { workflowFailed } from '../../src/contract/messages.js';
import { changedFilesNamed } from '../../src/trace/evaluation-failure.js';
import { type EvaluatedRun, evaluatedRun } from '../support/evaluator-run.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';

// With OTEL_EXPORTER_OTLP_ENDPOINT set, `ralph run --evaluator-command …` sends a `ralph.evaluate` span per
// evaluation, a child of the run's span beside the rounds', with the evaluator's child under it.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** The evaluated run (see evaluatedRun) traced to a fresh OTLP receiver: its spans once it ended. */
async function traced(edits?: string): Promise<{ run: EvaluatedRun; spans: ReceivedSpan[] }> {
  const otlp: OtlpReceiver = await startOtlpReceiver();
  cleanups.push(() => otlp.close());
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith('OTEL_') && key !== 'TRACEPARENT' && key !== 'TRACESTATE') env[key] = value;
  const run = await evaluatedRun({
    env: { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint },
    ...(edits === undefined ? {} : { edits }),
  });
  cleanups.push(run.cleanup);
  return { run, spans: otlp.spans() };
}

const named = (spans: ReceivedSpan[], name: string): ReceivedSpan[] =>
  spans.filter((span) => span.name === name).sort((a, b) => Number(a.startNs - b.startNs));

describe('ralph run --evaluator-command with traces', () => {
  it('a ralph.evaluate span per evaluation beside the rounds, its evaluator child under it, verdict and counts', async () => {
    const { run, spans } = await traced();
    expect(run.finished.code).toBe(0);
    const [ralph] = named(spans, 'invoke_agent ralph');
    const runId = ralph?.attributes['ralph.run.id'];
    const evaluations = named(spans, 'ralph.evaluate');
    expect(evaluations.map((span) => span.attributes)).toEqual([
      {
        'ralph.round': 1,
        'ralph.evaluator': 'command-evaluator',
        'ralph.run.id': runId,
        'ralph.evaluate.verdict': 'reject',
        'ralph.evaluate.findings': 2,
        'ralph.evaluate.evidence': 0,
        'ralph.evaluate.changed_files': 0,
      },
      {
        'ralph.round': 2,
        'ralph.evaluator': 'command-evaluator',
        'ralph.run.id': runId,
        'ralph.evaluate.verdict': 'accept',
        'ralph.evaluate.findings': 0,
        'ralph.evaluate.evidence': 2,
        'ralph.evaluate.changed_files': 0,
      },
    ]);
    const evaluators = named(spans, 'invoke_agent command-evaluator');
    expect(evaluators).toHaveLength(2);
    evaluations.forEach((evaluation, index) => {
      expect(evaluation.parentSpanId).toBe(ralph?.spanId);
      // A rejection is a verdict, not a failure of the evaluation.
      expect(evaluation.statusCode).not.toBe(2);
      const child = evaluators[index] as ReceivedSpan;
      expect(child.parentSpanId).toBe(evaluation.spanId);
      expect(child.attributes).toMatchObject({ 'ralph.round': index + 1, 'process.exit.code': 0 });
      // The evaluation follows its round's report: it starts after the round's worker ended.
      const worker = named(spans, 'invoke_agent command').find(
        (span) => span.attributes['ralph.round'] === index + 1,
      ) as ReceivedSpan;
      expect(evaluation.startNs).toBeGreaterThanOrEqual(worker.endNs);
    });
    for (const round of [1, 2])
      expect(named(spans, `ralph.round ${round}`)[0]?.parentSpanId).toBe(ralph?.spanId);
  });

  it('an evaluator that changed the workspace: its span fails with the workflow error and counts the files', async () => {
    const { run, spans } = await traced('sneaky.txt');
    expect(run.finished.code).toBe(1);
    const [evaluation] = named(spans, 'ralph.evaluate');
    expect(named(spans, 'ralph.evaluate')).toHaveLength(1);
    expect(evaluation?.attributes).toMatchObject({
      'ralph.round': 1,
      'ralph.evaluate.changed_files': 1,
      'error.type': 'workflow-failed',
    });
    expect(evaluation?.attributes['ralph.evaluate.verdict']).toBeUndefined();
    expect(evaluation?.statusCode).toBe(2);
    expect(evaluation?.statusMessage).toBe(
      workflowFailed(evaluatorChangedWorkspace(1, ['sneaky.txt (added)'])),
    );
  });
});

describe('changedFilesNamed', () => {
  it('counts the files a changed-workspace failure names, the ones it only counts included', () => {
    const files = Array.from({ length: 23 }, (_, index) => `f${index}.ts (added)`);
    expect(changedFilesNamed(workflowFailed(evaluatorChangedWorkspace(2, files)), 2)).toBe(23);
    expect(changedFilesNamed(evaluatorChangedWorkspace(2, ['a (changed)', 'b (removed)']), 2)).toBe(2);
    expect(changedFilesNamed(workflowFailed('the evaluator of round 2 timed out'), 2)).toBe(0);
  });
});
