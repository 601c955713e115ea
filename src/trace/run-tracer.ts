import type { Attributes, Context, Span, TextMapPropagator, Tracer } from '@opentelemetry/api';
import { errorText } from '../contract/error-text.js';
import type { ChildRun, RalphEnvelope, RalphProgressEvent, SubagentProvider } from '../contract/types.js';
import type { RalphUsage } from '../contract/usage.js';
import { changedFilesNamed } from './evaluation-failure.js';
import {
  ATTR,
  agentAttributes,
  INVOKE_AGENT,
  KIND_INTERNAL,
  STATUS_ERROR,
  usageAttributes,
} from './span-attributes.js';

/** The parts of `@opentelemetry/api` a run tracer calls, handed in so that nothing here loads it. */
export interface TraceApi {
  trace: { setSpan(context: Context, span: Span): Context };
  ROOT_CONTEXT: Context;
}

/** What a run tracer writes with: a tracer, the API it came with, and the propagator of children's `TRACEPARENT`. */
export interface TraceTools {
  tracer: Tracer;
  api: TraceApi;
  propagator: TextMapPropagator;
  /** The context the run's span starts in (e.g. a `TRACEPARENT` the host was given); absent: a new trace. */
  parent?: Context;
  /**
   * Starts `body`'s root span in the trace `traceId` (32 hex digits) rather than a new one: a fleet run keeps its
   * trace id on whichever worker runs it. Without it, `traceId` is ignored.
   */
  withTraceId?: <T>(traceId: string, body: () => T) => T;
}

/** Who a run's trace is for: the host's own run id (a fleet's workflow id) and the trace id it must keep, if any. */
export interface RunTraceOptions {
  /** The run id the host knows the run by; absent: the engine's, from the first event. */
  runId?: string;
  /** The trace the run's span opens, when it has no parent (see TraceTools.withTraceId). */
  traceId?: string;
  /** More attributes of the run's span (e.g. the task of a batch it runs for). */
  attributes?: Attributes;
}

/** How a run ended, as the host saw it: its envelope, or the error `execute` threw. */
export type RunOutcome =
  | { envelope: RalphEnvelope; usage?: RalphUsage }
  | { error: unknown; usage?: RalphUsage };

/**
 * Turns what a host sees of one run into its trace: the run's span, a span per round and per child, verify, wait, and
 * a span per evaluation beside the rounds'.
 */
export interface RunTracer {
  /** The provider as this run uses it: each child gets a span, and its `TRACEPARENT` pointing at it. */
  traceProvider(provider: SubagentProvider): SubagentProvider;
  /** Feeds one progress event of the run. */
  onProgress(event: RalphProgressEvent): void;
  /** Ends every span still open, the run's last, with the run's outcome. Idempotent. */
  finish(outcome: RunOutcome): void;
}

/** The round span's name: `ralph.round 3`. */
export const roundSpanName = (round: number): string => `ralph.round ${round}`;

/** The W3C trace-context variables that make `span` a child's parent (`TRACEPARENT`, and `TRACESTATE` if any). */
function traceEnvOf(tools: TraceTools, span: Span): Record<string, string> {
  const carrier: Record<string, string> = {};
  tools.propagator.inject(tools.api.trace.setSpan(tools.api.ROOT_CONTEXT, span), carrier, {
    set: (into, key, value) => {
      into[key] = value;
    },
  });
  const env: Record<string, string> = {};
  if (carrier.traceparent !== undefined) env.TRACEPARENT = carrier.traceparent;
  if (carrier.tracestate !== undefined && carrier.tracestate !== '') env.TRACESTATE = carrier.tracestate;
  return env;
}

/** Marks `span` failed with `error`'s text; its name goes to `error.type`. */
function failSpan(span: Span, error: unknown, type?: string): void {
  const name = type ?? (error instanceof Error ? error.name : 'Error');
  span.setAttribute(ATTR.errorType, name);
  span.setStatus({ code: STATUS_ERROR, message: errorText(error) });
}

/** What a command child's run says of its process, when it is one. */
function processOf(run: ChildRun): {
  pid?: number;
  exit?: () => { code: number | null; signal: string | null } | null;
} {
  return run as ChildRun & {
    pid?: number;
    exit?: () => { code: number | null; signal: string | null } | null;
  };
}

/**
 * Starts the trace of one run: its span (`invoke_agent ralph`) begins now; the rounds', children's, verify
 * commands' and limit waits' spans follow the run's progress events and its children, each under its round's.
 */
export function createRunTracer(tools: TraceTools, options: RunTraceOptions = {}): RunTracer {
  const { tracer, api } = tools;
  const start = (name: string, attributes: Attributes, parent: Context): Span =>
    tracer.startSpan(name, { kind: KIND_INTERNAL, attributes }, parent);

  const startRun = () =>
    start(
      `${INVOKE_AGENT} ralph`,
      {
        [ATTR.operationName]: INVOKE_AGENT,
        [ATTR.agentName]: 'ralph',
        ...(options.runId === undefined ? {} : { [ATTR.runId]: options.runId }),
        ...options.attributes,
      },
      tools.parent ?? api.ROOT_CONTEXT,
    );
  const { traceId } = options;
  const runSpan =
    traceId === undefined || tools.withTraceId === undefined
      ? startRun()
      : tools.withTraceId(traceId, startRun);
  const runContext = api.trace.setSpan(api.ROOT_CONTEXT, runSpan);
  let runId: string | undefined = options.runId;
  const rounds = new Map<number, Span>();
  let verify: Span | undefined;
  let limitWait: Span | undefined;
  /** The evaluation under way: its span (its evaluator child's span is its child) and the round it judges. */
  let evaluation: { span: Span; round: number } | undefined;
  let finished = false;

  const knowRun = (id: string) => {
    if (runId !== undefined) return;
    runId = id;
    runSpan.setAttribute(ATTR.runId, id);
  };

  /** The span of `round`, begun when first needed; earlier rounds' spans end then (a run has one round at a time). */
  const roundSpan = (round: number): Span => {
    const open = rounds.get(round);
    if (open !== undefined) return open;
    for (const [earlier, span] of rounds) {
      if (earlier < round) {
        span.end();
        rounds.delete(earlier);
      }
    }
    const span = start(
      roundSpanName(round),
      {
        [ATTR.round]: round,
        ...(runId === undefined ? {} : { [ATTR.runId]: runId }),
      },
      runContext,
    );
    rounds.set(round, span);
    return span;
  };
  const inRound = (round: number): Context => api.trace.setSpan(api.ROOT_CONTEXT, roundSpan(round));

  const endLimitWait = () => {
    limitWait?.end();
    limitWait = undefined;
  };

  function onProgress(event: RalphProgressEvent): void {
    if (finished) return;
    knowRun(event.runId);
    switch (event.type) {
      case 'round-started':
        // A round run again after a usage limit is the same round: its wait ends here.
        endLimitWait();
        // Its child's span may have begun the round's span already, without the cap.
        roundSpan(event.round).setAttribute(ATTR.maxRounds, event.maxRounds);
        return;
      case 'report-accepted':
        roundSpan(event.round).setAttributes({ [ATTR.reportStatus]: event.report.status });
        return;
      case 'verify-started':
        verify?.end();
        verify = start(
          'ralph.verify',
          { [ATTR.commandArgs]: event.command, [ATTR.round]: event.round },
          inRound(event.round),
        );
        return;
      case 'verify-finished': {
        const span =
          verify ?? start('ralph.verify', { [ATTR.commandArgs]: event.command }, inRound(event.round));
        verify = undefined;
        span.setAttributes({
          [ATTR.verifyPassed]: event.passed,
          [ATTR.verifyTimedOut]: event.timedOut,
          ...(event.exitCode === null ? {} : { [ATTR.exitCode]: event.exitCode }),
          ...(event.signal === null ? {} : { [ATTR.exitSignal]: event.signal }),
        });
        if (!event.passed)
          span.setStatus({
            code: STATUS_ERROR,
            message: event.timedOut ? 'timed out' : `exited ${event.exitCode ?? event.signal}`,
          });
        span.end();
        return;
      }
      case 'evaluator-started':
        evaluation?.span.end();
        evaluation = {
          round: event.round,
          span: start(
            'ralph.evaluate',
            {
              [ATTR.round]: event.round,
              [ATTR.evaluator]: event.evaluator,
              ...(runId === undefined ? {} : { [ATTR.runId]: runId }),
            },
            runContext,
          ),
        };
        return;
      case 'evaluator-finished': {
        const span =
          evaluation?.span ??
          start(
            'ralph.evaluate',
            { [ATTR.round]: event.round, [ATTR.evaluator]: event.evaluator },
            runContext,
          );
        evaluation = undefined;
        // A verdict is only given by an evaluator that changed nothing (a change fails the run first).
        span.setAttributes({
          [ATTR.evaluateVerdict]: event.verdict,
          [ATTR.evaluateFindings]: event.findings.length,
          [ATTR.evaluateEvidence]: event.evidence.length,
          [ATTR.evaluateChangedFiles]: 0,
        });
        span.end();
        return;
      }
      case 'limit-wait-started':
        endLimitWait();
        limitWait = start(
          'ralph.limit_wait',
          { [ATTR.round]: event.round, [ATTR.waitMs]: event.waitMs, [ATTR.limitDetail]: event.detail },
          inRound(event.round),
        );
        return;
      default:
        // The rest (a child started, a timeout, an idle round, the time limit) are moments of their round.
        roundSpan(event.round).addEvent(`ralph.${event.type}`);
    }
  }

  function traceProvider(provider: SubagentProvider): SubagentProvider {
    return {
      ...provider,
      async start(request, options) {
        knowRun(request.runId);
        // An evaluator's child is part of its evaluation; a worker's, of its round.
        const parent =
          request.role === 'evaluator' && evaluation?.round === request.round
            ? api.trace.setSpan(api.ROOT_CONTEXT, evaluation.span)
            : inRound(request.round);
        // The run's id as the host knows it (a fleet's run id), as on the run's span; else the engine's.
        const span = start(
          `${INVOKE_AGENT} ${provider.name}`,
          {
            ...agentAttributes(provider.name),
            [ATTR.runId]: runId ?? request.runId,
            [ATTR.round]: request.round,
          },
          parent,
        );
        let run: ChildRun;
        try {
          run = await provider.start(request, {
            ...options,
            env: { ...options.env, ...traceEnvOf(tools, span) },
          });
        } catch (error) {
          failSpan(span, error);
          span.end();
          throw error;
        }
        const child = processOf(run);
        span.setAttribute(ATTR.agentId, run.id);
        if (typeof child.pid === 'number') span.setAttribute(ATTR.pid, child.pid);
        const ended = () => {
          let usage: RalphUsage | null | undefined;
          try {
            usage = run.usage?.();
          } catch {
            usage = null; // A provider's own usage reader that throws: the span goes without.
          }
          span.setAttributes(usageAttributes(usage));
          const exit = child.exit?.();
          if (typeof exit?.code === 'number') span.setAttribute(ATTR.exitCode, exit.code);
          if (typeof exit?.signal === 'string') span.setAttribute(ATTR.exitSignal, exit.signal);
        };
        Promise.resolve(run.report).then(
          () => {
            ended();
            span.end();
          },
          (error: unknown) => {
            ended();
            failSpan(span, error);
            span.end();
          },
        );
        return run;
      },
    };
  }

  /**
   * Ends an evaluation the run ended in: a failure failed it (with the files it changed, when that was why); a run
   * that settled (the time limit stopped the evaluator) leaves it without a verdict.
   */
  function endEvaluation({ span, round }: { span: Span; round: number }, outcome: RunOutcome): void {
    if ('error' in outcome) {
      const message = (outcome.error as { message?: unknown } | null)?.message;
      const code = (outcome.error as { code?: unknown } | null)?.code;
      span.setAttribute(
        ATTR.evaluateChangedFiles,
        typeof message === 'string' ? changedFilesNamed(message, round) : 0,
      );
      failSpan(span, outcome.error, typeof code === 'string' ? code : undefined);
    }
    span.end();
  }

  function finish(outcome: RunOutcome): void {
    if (finished) return;
    finished = true;
    endLimitWait();
    verify?.end();
    if (evaluation !== undefined) endEvaluation(evaluation, outcome);
    for (const span of rounds.values()) span.end();
    rounds.clear();
    runSpan.setAttributes(usageAttributes(outcome.usage));
    if ('envelope' in outcome) {
      const { envelope } = outcome;
      knowRun(envelope.runId);
      runSpan.setAttributes({
        [ATTR.status]: envelope.result.status,
        [ATTR.rounds]: envelope.result.rounds,
        [ATTR.agentsStarted]: envelope.agentsStarted,
        [ATTR.reportStatus]: envelope.result.report.status,
      });
    } else {
      const { error } = outcome;
      const code = (error as { code?: unknown } | null)?.code;
      const failedRun = (error as { runId?: unknown } | null)?.runId;
      if (typeof failedRun === 'string') knowRun(failedRun);
      runSpan.setAttribute(ATTR.status, 'failed');
      if (typeof code === 'string') runSpan.setAttribute(ATTR.errorCode, code);
      failSpan(runSpan, error, typeof code === 'string' ? code : undefined);
    }
    runSpan.end();
  }

  return { traceProvider, onProgress, finish };
}
