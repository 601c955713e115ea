import { readFileSync, renameSync } from 'node:fs';
import { resolve } from 'node:path';
import { errorText } from '../../contract/error-text.js';
import { RalphError } from '../../contract/errors.js';
import { RecordingError } from '../../inspect/recording-reader.js';
import { type RecordedResume, RunSettledError, resumePointOf } from '../../inspect/resume-point.js';
import { keptName, recordedHostRuns } from '../../process/recorded-host.js';
import { onOrphanKilled, sweepOrphanedRoundsOnce } from '../../process/round-folder.js';
import { assertSandboxAvailable } from '../../process/sandbox-check.js';
import { printFailure } from './print-failure.js';
import { type ResumeOptions, resumedOptions } from './resume-options.js';
import { type RunOptions, runCommand } from './run.js';

const refused = (path: string, problem: string) =>
  new RalphError({ code: 'refused', message: `ralph resume ${path}: ${problem}` });

function readResume(path: string): RecordedResume {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw refused(path, `cannot read the recording (${errorText(error)})`);
  }
  try {
    return resumePointOf(text);
  } catch (error) {
    if (error instanceof RunSettledError || error instanceof RecordingError)
      throw refused(path, error.message);
    throw error;
  }
}

/**
 * `ralph resume FILE`: continues a run recorded with `ralph run --record FILE` that did not settle (its host was
 * killed, the machine rebooted, a second Ctrl-C forced the exit). The run keeps its id, objective and round cap;
 * the last accepted report is the handoff and the next round is numbered after it: a round that was going on is
 * run again with a fresh child, once the sweep of the first round has killed what is left of its process group
 * (recorded pid and start time checked, so a reused pid is never signalled). The agents are the recorded run's
 * unless agent options are given here, and its evaluator the recorded one unless evaluator options are. A run that
 * stopped while its evaluator checked a reported completion evaluates that completion again, with a fresh
 * evaluator. The resumed run is recorded again (to FILE unless --record names another file; the recording resumed
 * from is kept as FILE.1, FILE.2, …), so it can be resumed in turn.
 */
export async function resumeCommand(path: string, options: ResumeOptions): Promise<number> {
  const json = options.json === true;
  let recorded: RecordedResume;
  try {
    recorded = readResume(path);
    const host = recorded.host as { ralphRun?: unknown; process?: unknown } | undefined;
    const run = host?.ralphRun;
    if (run === undefined || typeof run !== 'object' || run === null)
      throw refused(
        path,
        'the recording keeps no ralph run options (it was not recorded by ralph run --record)',
      );
    const pid = recordedHostRuns(host?.process);
    if (pid !== undefined)
      throw refused(path, `run ${recorded.runId} is still running in process ${pid}; stop it first`);
    const args = recorded.args;
    if (args === null || typeof args !== 'object')
      throw refused(path, 'the recorded call has no arguments to continue');

    const merged = resumedOptions(path, run as RunOptions, options);
    // Refused before the recording is moved aside, so the same command works once bubblewrap can run.
    if (merged.sandbox === true) await assertSandboxAvailable();
    // The recording resumed from stays out of a sandboxed agent's sight, where it is kept or left.
    let oldRecording = resolve(path);
    if (options.record === undefined || options.record === path) {
      oldRecording = resolve(keptName(path));
      renameSync(path, oldRecording);
    }
    process.stderr.write(`ralph resume: resuming run ${recorded.runId} ${resumedFrom(recorded.point)}\n`);
    await sweepLeftBehind(host?.process);
    return await runCommand(undefined, merged, {
      args: args as Record<string, unknown>,
      resume: { runId: recorded.runId, point: recorded.point },
      recordings: [oldRecording],
    });
  } catch (error) {
    return printFailure(error, json);
  }
}

/**
 * Where the run picks up, as the resume line says it: `from round 3`, `from round 2's evaluation`, or (a run killed
 * while it waited for a person's answer) `waiting again for an answer to round 2's blocker`.
 */
function resumedFrom(point: RecordedResume['point']): string {
  if (point.awaitingAnswer === true) return `waiting again for an answer to round ${point.round}'s blocker`;
  return point.evaluating === true
    ? `from round ${point.round}'s evaluation`
    : `from round ${point.round + 1}`;
}

/**
 * Kills what the dead host left running (the sweep every first round waits for, run here first) and says so: a
 * group whose round folder names the recorded host is "the agent left behind"; other dead hosts' orphans go quietly.
 */
async function sweepLeftBehind(host: unknown): Promise<void> {
  const recorded = host as { pid?: unknown; startTime?: unknown } | null | undefined;
  onOrphanKilled((groupPid, owner) => {
    if (owner.host.pid !== recorded?.pid || owner.host.startTime !== recorded?.startTime) return;
    process.stderr.write(
      `ralph resume: killed the agent the dead host left behind (process group ${groupPid})\n`,
    );
  });
  try {
    await sweepOrphanedRoundsOnce();
  } finally {
    onOrphanKilled(undefined);
  }
}
