import { isRalphError, RalphError } from '../../contract/errors.js';
import { WORKFLOW_CANCELLED } from '../../contract/messages.js';
import { assertDepthAllowed, DEFAULT_DEPTH_LIMIT } from '../../providers/depth.js';
import type { AgentOptions } from './agent-options.js';
import { createCliTool } from './cli-tool.js';
import { EXIT, exitCodeForError, exitCodeForStatus } from './exit-codes.js';
import { type InspectOptions, openRunInspector, type RunInspector } from './inspect-run.js';
import { CANCELLING, FORCED, RECORD_NOT_YET } from './messages.js';
import { parseNumberOption } from './numbers.js';
import { createProgressReporter, progressOptionsFor } from './progress.js';
import { FORCED_SETTLE_MS, trapInterrupts } from './signals.js';

/** The options of `ralph run`. */
export interface RunOptions extends AgentOptions, InspectOptions {
  maxRounds?: string;
  json?: boolean;
  record?: string;
}

/** Prints a failure (message, then its detail) on stderr, and as JSON on stdout under --json; returns its exit code. */
function reportFailure(error: unknown, json: boolean): number {
  if (!isRalphError(error)) {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`ralph: internal error: ${text}\n`);
    return EXIT.failed;
  }
  process.stderr.write(`${error.message}\n${error.detail === undefined ? '' : `${error.detail}\n`}`);
  if (json) process.stdout.write(`${JSON.stringify({ error: error.toJSON() }, null, 2)}\n`);
  return exitCodeForError(error.code);
}

/**
 * `ralph run`: hosts the tool for one call from the terminal and returns the exit code. The objective and the
 * round cap go to the tool as the call's arguments, unchecked, so its checks speak with its messages. The first
 * SIGINT or SIGTERM cancels the run, which settles once the child has stopped; a second one kills the child's
 * process group and exits at once.
 */
export async function runCommand(objective: string | undefined, options: RunOptions): Promise<number> {
  const json = options.json === true;
  let inspector: RunInspector | undefined;
  try {
    if (options.record !== undefined) throw new RalphError({ code: 'refused', message: RECORD_NOT_YET });
    // A `ralph run` started by an agent inside a Ralph loop is refused here, before anything starts, rather than
    // failing its first round when the provider's own guard trips.
    assertDepthAllowed(DEFAULT_DEPTH_LIMIT);
    const { tool, agent, killChildren } = createCliTool(options, { agentId: `cli:${process.pid}` });
    const args: Record<string, unknown> = {};
    if (objective !== undefined) args.objective = objective;
    if (options.maxRounds !== undefined) args.maxRounds = parseNumberOption(options.maxRounds);

    inspector = await openRunInspector(objective, options, process.stderr);
    const progress = createProgressReporter(process.stderr, progressOptionsFor(process.stderr));
    const controller = new AbortController();
    const exitCancelled = () => {
      progress.stop();
      process.exit(reportFailure(new RalphError({ code: 'cancelled', message: WORKFLOW_CANCELLED }), json));
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
        onProgress: inspector?.following(progress.onProgress) ?? progress.onProgress,
      });
      inspector?.settledWith(envelope);
      progress.stop();
      const text = json ? JSON.stringify(envelope, null, 2) : tool.render.result(args, envelope).text;
      process.stdout.write(`${text}\n`);
      return exitCodeForStatus(envelope.result.status);
    } finally {
      clearTimeout(forced);
      progress.stop();
      release();
    }
  } catch (error) {
    inspector?.failedWith(error);
    return reportFailure(error, json);
  } finally {
    // After the result is out: with --inspect-keep the page stays up until Ctrl-C.
    await inspector?.finish();
  }
}
