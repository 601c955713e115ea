import type { Span } from '@opentelemetry/api';
import { errorText } from '../contract/error-text.js';
import type { CombinedVerify, TaskEntry } from '../machines/batch-types.js';
import type { TraceExport } from '../trace/otlp-export.js';
import { createRunTracer, type RunTracer } from '../trace/run-tracer.js';
import { KIND_INTERNAL, STATUS_ERROR } from '../trace/span-attributes.js';
import { startTracesIfAsked } from '../trace/start-traces.js';

/** The statuses a task's merge ends in. */
const MERGE_ENDS = new Set(['landed', 'needs-review', 'cancelled']);

/**
 * The trace of one `ralph batch`, when the environment asks for traces: the batch's span (`ralph.batch`), each task's
 * run under it as `ralph run` traces one, and each task's way through the merge queue as `ralph.merge <task>`, with a
 * span per step (rebase, resolve, verify, land).
 */
export interface BatchTracing {
  /** The tracer of one task's run, its run span under the batch's. */
  runTracer(taskId: string): RunTracer;
  /**
   * Runs one merge step of `taskId` in a span of its own, under the task's merge span (begun by its first step).
   * `outcome`, when given, reads the step's result: its attributes, and why it failed (the span's error) or null.
   */
  mergeStep<T>(
    step: string,
    taskId: string,
    body: () => Promise<T>,
    outcome?: (result: T) => StepOutcome,
  ): Promise<T>;
  /** Feeds the batch's tasks after a change: a task whose merge ended has its merge span ended. */
  onTasks(tasks: readonly TaskEntry[]): void;
  /** Ends every span with the batch's outcome and sends them, within the flush bound; never rejects. */
  end(failed: boolean): Promise<void>;
}

/** What a merge step's result says on its span: attributes, and why it failed (status ERROR) or null. */
export interface StepOutcome {
  attributes: Record<string, string | boolean>;
  failed: string | null;
}

/** The combined tree's verify on its span, as a round's `ralph.verify`: passed or not, an error when it did not. */
export const verifySpanOutcome = (verdict: CombinedVerify): StepOutcome => ({
  attributes: { 'ralph.verify.passed': verdict.passed },
  failed: verdict.passed ? null : 'the verify command failed on the combined tree',
});

/** Starts the batch's trace, or returns undefined (having loaded nothing) when the environment asks for none. */
export async function startBatchTracing(
  batchId: string,
  say: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<BatchTracing | undefined> {
  const exported = await startTracesIfAsked(env, say);
  return exported === undefined ? undefined : batchTracing(exported, batchId);
}

function batchTracing(exported: TraceExport, batchId: string): BatchTracing {
  const { tracer, api } = exported;
  const batchSpan = tracer.startSpan(
    'ralph.batch',
    { kind: KIND_INTERNAL, attributes: { 'ralph.batch.id': batchId } },
    exported.parent ?? api.ROOT_CONTEXT,
  );
  const inBatch = api.trace.setSpan(api.ROOT_CONTEXT, batchSpan);
  const merges = new Map<string, Span>();

  const mergeSpan = (taskId: string): Span => {
    let span = merges.get(taskId);
    if (span === undefined) {
      span = tracer.startSpan(
        `ralph.merge ${taskId}`,
        { kind: KIND_INTERNAL, attributes: { 'ralph.batch.id': batchId, 'ralph.task.id': taskId } },
        inBatch,
      );
      merges.set(taskId, span);
    }
    return span;
  };

  return {
    runTracer: (taskId) =>
      createRunTracer({ ...exported, parent: inBatch }, { attributes: { 'ralph.task.id': taskId } }),
    async mergeStep(step, taskId, body, outcome) {
      const span = tracer.startSpan(
        `ralph.merge.${step}`,
        { kind: KIND_INTERNAL, attributes: { 'ralph.task.id': taskId } },
        api.trace.setSpan(api.ROOT_CONTEXT, mergeSpan(taskId)),
      );
      try {
        const result = await body();
        if (outcome !== undefined) {
          const { attributes, failed } = outcome(result);
          span.setAttributes(attributes);
          if (failed !== null) span.setStatus({ code: STATUS_ERROR, message: failed });
        }
        return result;
      } catch (error) {
        span.setStatus({ code: STATUS_ERROR, message: errorText(error) });
        throw error;
      } finally {
        span.end();
      }
    },
    onTasks(tasks) {
      for (const task of tasks) {
        const span = merges.get(task.id);
        if (span === undefined || !MERGE_ENDS.has(task.status)) continue;
        span.setAttribute('ralph.task.status', task.status);
        if (task.status === 'needs-review')
          span.setStatus({ code: STATUS_ERROR, message: task.note ?? 'needs review' });
        span.end();
        merges.delete(task.id);
      }
    },
    async end(failed) {
      for (const span of merges.values()) span.end();
      merges.clear();
      if (failed) batchSpan.setStatus({ code: STATUS_ERROR });
      batchSpan.end();
      await exported.shutdown();
    },
  };
}
