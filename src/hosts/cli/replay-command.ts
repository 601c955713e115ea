import { readFileSync } from 'node:fs';
import { errorText } from '../../contract/error-text.js';
import { RalphError } from '../../contract/errors.js';
import { uncountedSpendNote } from '../../contract/guard-rail-messages.js';
import { usageOf } from '../../contract/usage.js';
import { RecordingError } from '../../inspect/recording-reader.js';
import { replayRecording } from '../../inspect/replay.js';
import { renderResultText } from '../../render/result-text.js';
import { stripControl, terminalJson } from '../../render/terminal-text.js';
import { callArgumentHint, withHint } from '../../run/flag-hints.js';
import { CANCELLING, replayFileUnreadable, replayRefused, roundCapNote } from './cli-texts.js';
import { exitCodeForStatus } from './exit-codes.js';
import { printFailure } from './print-failure.js';
import {
  createProgressReporter,
  noteBeforeFirstRound,
  type ProgressReporter,
  progressOptionsFor,
} from './progress.js';

/** The options of `ralph replay`. */
export interface ReplayOptions {
  json?: boolean;
}

/** The `ralph run` options a recording's header kept, when `ralph run` recorded it (not `ralph resume`). */
function runOptionsOf(host: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const run = host?.ralphRun;
  return typeof run === 'object' && run !== null && host?.resumed !== true
    ? (run as Record<string, unknown>)
    : undefined;
}

/**
 * The lines `ralph run` printed after the last round's of a run that settled: what its agents (its evaluator's
 * included) said they used in all, and for a resumed run the rounds whose spend is unknown. Read, not trusted: a
 * recording made before usage was recorded has none, and prints none.
 */
function printUsageTotal(progress: ProgressReporter, context: unknown): void {
  const { usage, call } = context as {
    usage?: unknown;
    call?: { resumeFrom?: { uncountedRounds?: unknown } | null };
  };
  const used = usageOf(usage);
  if (used === null) return;
  progress.usageTotal(used);
  const uncounted = call?.resumeFrom?.uncountedRounds;
  if (Array.isArray(uncounted) && uncounted.length > 0) progress.note(uncountedSpendNote(uncounted));
}

/**
 * `ralph replay FILE`: rebuilds a recorded `ralph run` from its events through the machine's pure transitions (no
 * agent, no process) and prints what the run printed: its progress lines on stderr, the native result text (or with
 * --json the envelope, or the error) on stdout, and the run's exit code. A recording the machine cannot replay
 * (unreadable, made by a machine no release had, edited into an impossible run, cut off) is refused with its line,
 * exit 2.
 */
export async function replayCommand(file: string, options: ReplayOptions): Promise<number> {
  const json = options.json === true;
  try {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new RalphError({ code: 'refused', message: replayFileUnreadable(file, errorText(error)) });
    }
    let replay: ReturnType<typeof replayRecording>;
    try {
      replay = replayRecording(text);
    } catch (error) {
      if (!(error instanceof RecordingError)) throw error;
      throw new RalphError({ code: 'refused', message: replayRefused(file, error.message) });
    }

    // The lines a run's progress printed to a log (never the live status line: a replay has no time to show).
    const progress = createProgressReporter(process.stderr, {
      ...progressOptionsFor(process.stderr),
      live: false,
    });
    // The note `ralph run` printed before round 1, from the options its recording kept.
    const run = runOptionsOf(replay.header.host);
    const onProgress = noteBeforeFirstRound(progress, roundCapNote(run));
    for (const step of replay.steps) {
      if (step.event.type === 'CANCEL') progress.note(CANCELLING);
      for (const event of step.emitted) onProgress(event);
    }
    const { outcome, header, snapshot, forcedExit } = replay;
    if (outcome.ok) printUsageTotal(progress, snapshot.context);
    progress.stop();

    if (!outcome.ok) {
      // A forced exit reported the bare cancellation, as the run's process did when it exited.
      const runId = forcedExit ? undefined : snapshot.context.runId;
      const failure = new RalphError(outcome.failure, runId === undefined ? undefined : { runId });
      // A refused call gets the flag's line under it, as `ralph run` printed it.
      const maxRounds = typeof run?.maxRounds === 'string' ? run.maxRounds : undefined;
      return printFailure(run === undefined ? failure : withHint(failure, callArgumentHint(maxRounds)), json);
    }
    const { envelope } = outcome;
    const printed = json
      ? terminalJson(envelope)
      : stripControl(renderResultText(envelope, header.maxResultChars));
    process.stdout.write(`${printed}\n`);
    return exitCodeForStatus(envelope.result.status);
  } catch (error) {
    return printFailure(error, json);
  }
}
