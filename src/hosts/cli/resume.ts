import { existsSync, readFileSync, renameSync } from 'node:fs';
import { errorText } from '../../contract/error-text.js';
import { RalphError } from '../../contract/errors.js';
import { RecordingError } from '../../inspect/recording-reader.js';
import { type RecordedResume, RunSettledError, resumePointOf } from '../../inspect/resume-point.js';
import { procStat, thisHost } from '../../providers/process-identity.js';
import type { AgentOptions } from './agent-options.js';
import { reportFailure } from './report-failure.js';
import { type RunOptions, runCommand } from './run.js';

/** The options of `ralph resume`: where its output goes, and agent options that replace the recorded ones. */
export interface ResumeOptions extends AgentOptions {
  json?: boolean;
  record?: string;
  inspect?: string | boolean;
  inspectKeep?: boolean;
}

const refused = (path: string, problem: string) =>
  new RalphError({ code: 'refused', message: `ralph resume ${path}: ${problem}` });

/** The recorded host process, if it still runs on this machine: two hosts of one run must never work at once. */
function recordedHostRuns(host: unknown): number | undefined {
  const me = thisHost();
  const recorded = host as {
    pid?: unknown;
    startTime?: unknown;
    bootId?: unknown;
    pidNamespace?: unknown;
  } | null;
  if (me === null || recorded === null || typeof recorded !== 'object') return undefined;
  if (recorded.bootId !== me.bootId || recorded.pidNamespace !== me.pidNamespace) return undefined;
  if (typeof recorded.pid !== 'number' || recorded.pid === me.pid) return undefined;
  const stat = procStat(recorded.pid);
  return stat !== null && stat.state !== 'Z' && stat.startTime === recorded.startTime
    ? recorded.pid
    : undefined;
}

/** The first free `FILE.N`, where the recording being resumed is kept. */
function keptName(path: string): string {
  for (let n = 1; ; n += 1) if (!existsSync(`${path}.${n}`)) return `${path}.${n}`;
}

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
 * unless agent options are given here. The resumed run is recorded again (to FILE unless --record names another
 * file; the recording resumed from is kept as FILE.1, FILE.2, …), so it can be resumed in turn.
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

    const agentGiven = options.agent !== undefined || options.agentCommand !== undefined;
    const recordedRun = run as RunOptions;
    const merged: RunOptions = {
      ...(agentGiven ? omitAgent(recordedRun) : recordedRun),
      ...definedOnly(options),
      record: options.record ?? path,
    };
    if (options.record === undefined || options.record === path) renameSync(path, keptName(path));
    return await runCommand(undefined, merged, {
      args: args as Record<string, unknown>,
      resume: { runId: recorded.runId, point: recorded.point },
    });
  } catch (error) {
    return reportFailure(error, json);
  }
}

function omitAgent(options: RunOptions): RunOptions {
  const { agent: _agent, agentCommand: _command, ...rest } = options;
  return rest;
}

function definedOnly(options: ResumeOptions): Partial<RunOptions> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}
