import { resolve } from 'node:path';
import { firstAnswer } from '../../actors/answer-inbox.js';
import { callIsAcceptable } from '../../contract/call.js';
import { isRalphError, RalphError } from '../../contract/errors.js';
import { uncountedSpendNote } from '../../contract/guard-rail-messages.js';
import { WORKFLOW_CANCELLED } from '../../contract/messages.js';
import type { RalphUsage } from '../../contract/usage.js';
import type { Notifier } from '../../notify/notifier.js';
import { type RunNotifications, runNotifications } from '../../notify/run-notifications.js';
import { assertDepthAllowed, DEFAULT_DEPTH_LIMIT } from '../../process/nesting-depth.js';
import { stripControl, terminalJson } from '../../render/terminal-text.js';
import { callArgumentHint, withHint } from '../../run/flag-hints.js';
import { parseNumberOption } from '../../run/numbers.js';
import type { RalphExec } from '../../run/tool.js';
import type { AgentOptions } from './agent-options.js';
import type { AskOptions } from './ask-options.js';
import { CANCELLING, FORCED, roundCapNote } from './cli-texts.js';
import { createCliTool } from './cli-tool.js';
import type { EvaluatorOptions } from './evaluator-options.js';
import { exitCodeForStatus } from './exit-codes.js';
import type { GuardRailOptions } from './guard-rail-options.js';
import { type InspectOptions, openRunInspector, type RunInspector } from './inspect-run.js';
import { type NotifyOptions, notifierFor } from './notify-options.js';
import { printFailure } from './print-failure.js';
import { createProgressReporter, noteBeforeFirstRound, progressOptionsFor } from './progress.js';
import { openRecording, recordingHostOf, recordingOption } from './run-recording.js';
import { alsoTo, type RunTracing, startRunTracing } from './run-tracing.js';
import type { SandboxOptions } from './sandbox-options.js';
import { FORCED_SETTLE_MS, trapInterrupts } from './signals.js';

/** The options of `ralph run`. */
export interface RunOptions
  extends AgentOptions,
    GuardRailOptions,
    EvaluatorOptions,
    SandboxOptions,
    InspectOptions,
    NotifyOptions,
    AskOptions {
  maxRounds?: string;
  json?: boolean;
  record?: string;
}

/** A run `ralph resume` continues: the recorded call and where it picks up. */
export interface ContinuedRun {
  args: Record<string, unknown>;
  resume: NonNullable<RalphExec['resume']>;
  /** Recordings of the run besides the one it writes (the one resumed from, kept as FILE.N): hidden in a sandbox. */
  recordings?: readonly string[];
}

/** The run's page a notification links to: the live page while it stays up, else the recording `ralph report` reads. */
function notificationLink(options: RunOptions, inspector: RunInspector | undefined): string | undefined {
  if (inspector !== undefined && options.inspectKeep === true) return inspector.url;
  return options.record === undefined ? undefined : resolve(options.record);
}

/**
 * `ralph run`: hosts the tool for one call from the terminal and returns the exit code. The objective and the
 * round cap go to the tool as the call's arguments, unchecked, so its checks speak with its messages. The first
 * SIGINT or SIGTERM cancels the run, which settles once the child has stopped; a second one kills the child's
 * process group and exits at once. With `--record FILE` every inspection event of the run is in FILE before the
 * process exits, however it exits; a forced exit before the run settled is the file's last line.
 */
export async function runCommand(
  objective: string | undefined,
  options: RunOptions,
  continued?: ContinuedRun,
): Promise<number> {
  const json = options.json === true;
  let inspector: RunInspector | undefined;
  let tracing: RunTracing | undefined;
  let used: RalphUsage | undefined;
  let notifier: Notifier | undefined;
  let notes: RunNotifications | undefined;
  try {
    // A `ralph run` started by an agent inside a Ralph loop is refused here, before anything starts, rather than
    // failing its first round when the provider's own guard trips.
    assertDepthAllowed(DEFAULT_DEPTH_LIMIT);
    tracing = await startRunTracing(process.stderr);
    const { tool, agent, killChildren, preflight } = createCliTool(options, {
      agentId: `cli:${process.pid}`,
      ...(tracing === undefined ? {} : { traceProvider: tracing.traceProvider }),
      hide: [options.record, ...(continued?.recordings ?? [])],
    });
    notifier = notifierFor(options);
    const args: Record<string, unknown> = continued?.args ?? {};
    if (continued === undefined) {
      if (objective !== undefined) args.objective = objective;
      if (options.maxRounds !== undefined) args.maxRounds = parseNumberOption(options.maxRounds);
    }
    // A call the tool will refuse is left to it (its message first); one it will accept must have an agent to start.
    if (callIsAcceptable(args)) await preflight();
    const recording = options.record === undefined ? undefined : openRecording(options.record);

    inspector = await openRunInspector(options, process.stderr);
    // Only a run that asks (--ask) has an answer source: one without is the reference's, and loads none of it.
    const local =
      tool.config.waitForAnswersMs === undefined
        ? undefined
        : await (await import('./terminal-answers.js')).localAnswerSource({
            recording: options.record === undefined ? undefined : resolve(options.record),
            json,
          });
    // With --inspect the live page's answer box is one more source.
    const answers =
      local === undefined || inspector === undefined ? local : firstAnswer([local, inspector.answers]);
    const runNotes = runNotifications(notifier, { link: notificationLink(options, inspector) });
    notes = runNotes;
    const progress = createProgressReporter(process.stderr, progressOptionsFor(process.stderr));
    const showProgress = noteBeforeFirstRound(
      progress,
      continued === undefined ? roundCapNote(options) : undefined,
    );
    const onProgress = alsoTo(tracing, (event) => {
      runNotes.onProgress(event);
      showProgress(event);
    });
    const controller = new AbortController();
    const exitCancelled = () => {
      progress.stop();
      recording?.forcedExit();
      process.exit(printFailure(new RalphError({ code: 'cancelled', message: WORKFLOW_CANCELLED }), json));
    };
    let forced: NodeJS.Timeout | undefined;
    const release = trapInterrupts({
      cancel() {
        progress.note(CANCELLING);
        controller.abort();
      },
      force() {
        if (forced !== undefined) exitCancelled();
        progress.note(FORCED);
        killChildren();
        // The killed child normally lets the run settle at once, through the usual path; this is the backstop.
        forced = setTimeout(exitCancelled, FORCED_SETTLE_MS);
      },
    });
    try {
      const envelope = await tool.execute(args, {
        agent,
        signal: controller.signal,
        onProgress,
        onUsage: (total) => {
          used = total;
          runNotes.onUsage(total);
        },
        ...recordingOption(recording, inspector),
        ...(recording === undefined
          ? {}
          : { recordingHost: recordingHostOf(options, continued !== undefined) }),
        ...(continued === undefined ? {} : { resume: continued.resume }),
        ...(answers === undefined ? {} : { answers }),
      });
      // After the last round's line, only for a run that settled: a failed run's stderr stays the reference's.
      if (used !== undefined) progress.usageTotal(used);
      // A resumed run's total leaves out what its interrupted rounds spent: the line says so rather than hide it.
      const uncounted = continued?.resume.point.uncountedRounds ?? [];
      if (used !== undefined && uncounted.length > 0) progress.note(uncountedSpendNote(uncounted));
      progress.stop();
      runNotes.settled(envelope, tool.config.maxResultChars);
      const text = json ? terminalJson(envelope) : stripControl(tool.render.result(args, envelope).text);
      process.stdout.write(`${text}\n`);
      // After the result is out: a slow receiver delays the exit, within the flush bound, never the answer.
      await tracing?.end({ envelope, ...(used === undefined ? {} : { usage: used }) });
      return exitCodeForStatus(envelope.result.status);
    } finally {
      clearTimeout(forced);
      progress.stop();
      release();
      recording?.close();
    }
  } catch (error) {
    if (isRalphError(error)) notes?.failed(error);
    const code = printFailure(
      continued === undefined ? withHint(error, callArgumentHint(options.maxRounds)) : error,
      json,
    );
    await tracing?.end({ error, ...(used === undefined ? {} : { usage: used }) });
    return code;
  } finally {
    // After the result is out, the notifications still going get a short while to arrive, and no longer.
    await notifier?.close();
    // After the result is out: with --inspect-keep the page stays up until Ctrl-C.
    await inspector?.finish();
  }
}
