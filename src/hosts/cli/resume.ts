import { readFileSync, realpathSync, renameSync } from 'node:fs';
import { resolve } from 'node:path';
import { errorText } from '../../contract/error-text.js';
import { RalphError } from '../../contract/errors.js';
import { RecordingError } from '../../inspect/recording-reader.js';
import { type RecordedResume, RunSettledError, resumePointOf } from '../../inspect/resume-point.js';
import { keptName, recordedHostRuns } from '../../process/recorded-host.js';
import { onOrphanKilled, sweepOrphanedRoundsOnce } from '../../process/round-folder.js';
import { assertSandboxAvailable } from '../../process/sandbox-check.js';
import type { AgentOptions } from './agent-options.js';
import type { AskOptions } from './ask-options.js';
import type { EvaluatorOptions } from './evaluator-options.js';
import { NOTIFY_OPTION_KEYS, type NotifyOptions } from './notify-options.js';
import { printFailure } from './print-failure.js';
import { type RunOptions, runCommand } from './run.js';
import type { SandboxOptions } from './sandbox-options.js';

/**
 * The options of `ralph resume`: where its output goes, agent and evaluator options that replace the recorded ones,
 * and the sandbox, which a resume can add to a run but never take away.
 */
export interface ResumeOptions
  extends AgentOptions,
    EvaluatorOptions,
    SandboxOptions,
    NotifyOptions,
    AskOptions {
  json?: boolean;
  record?: string;
  inspect?: string | boolean;
  inspectKeep?: boolean;
  /** Consent to run what the recording names (its agent, command, binary paths, verify command). */
  trustRecording?: boolean;
}

/** The recorded options that say what runs in the rounds: all replaced when an agent is given on the command line. */
const RECORDED_COMMANDS = [
  'agent',
  'agentCommand',
  'agentReportsCost',
  'claudePath',
  'codexPath',
  'qwenPath',
  'geminiPath',
  'opencodePath',
  'copilotPath',
  'droidPath',
  'verify',
] as const;

/**
 * The recorded options that say which evaluator runs: replaced when an evaluator is given on the command line, and
 * only then (an agent given here leaves them: a resumed run never drops its evaluator unasked).
 */
const RECORDED_EVALUATOR = ['evaluator', 'evaluatorCommand', 'evaluatorReportsCost'] as const;

/** Whether the recorded run had an evaluator (the options name one). */
const hasEvaluator = (run: RunOptions): boolean =>
  run.evaluator !== undefined || run.evaluatorCommand !== undefined;

/** The options that say where output goes: never taken from a recording (ralph run does not record them). */
const OUTPUT_OPTIONS = [
  'json',
  'record',
  'inspect',
  'inspectKeep',
  'trustRecording',
  ...NOTIFY_OPTION_KEYS,
] as const;

const refused = (path: string, problem: string) =>
  new RalphError({ code: 'refused', message: `ralph resume ${path}: ${problem}` });

/**
 * What the recorded options would run, one line each, every value JSON-quoted (a shared file may hide a command
 * behind terminal escapes or line breaks; quoted, they show).
 */
export function recordedCommands(run: RunOptions): string[] {
  const lines: string[] = [];
  const shown = (value: unknown) => JSON.stringify(value);
  if (run.agentCommand !== undefined) lines.push(`agent command: ${shown(run.agentCommand)}`);
  if (run.agent !== undefined) lines.push(`agent: ${shown(run.agent)}`);
  if (run.evaluatorCommand !== undefined) lines.push(`evaluator command: ${shown(run.evaluatorCommand)}`);
  if (run.evaluator !== undefined) lines.push(`evaluator: ${shown(run.evaluator)}`);
  if (run.claudePath !== undefined) lines.push(`claude path: ${shown(run.claudePath)}`);
  if (run.codexPath !== undefined) lines.push(`codex path: ${shown(run.codexPath)}`);
  if (run.qwenPath !== undefined) lines.push(`qwen path: ${shown(run.qwenPath)}`);
  if (run.geminiPath !== undefined) lines.push(`gemini path: ${shown(run.geminiPath)}`);
  if (run.opencodePath !== undefined) lines.push(`opencode path: ${shown(run.opencodePath)}`);
  if (run.copilotPath !== undefined) lines.push(`copilot path: ${shown(run.copilotPath)}`);
  if (run.droidPath !== undefined) lines.push(`droid path: ${shown(run.droidPath)}`);
  if (run.verify !== undefined) lines.push(`verify command: ${shown(run.verify)}`);
  if (run.cwd !== undefined) lines.push(`in the workspace: ${shown(run.cwd)}`);
  return lines;
}

/** The last line of a consent refusal: what the user can do, the evaluator named when the recorded run had one. */
const consentHint = (evaluated: boolean): string =>
  evaluated
    ? 'Pass --trust-recording to run them, or give the agent and the evaluator here (--agent or --agent-command, and --evaluator or --evaluator-command), which replace every recorded command.'
    : 'Pass --trust-recording to run them, or give the agent here (--agent or --agent-command), which replaces every recorded command.';

/**
 * Refusal: the recording names what to run, and the user neither consented nor gave the agent (and, for a run with
 * an evaluator, the evaluator) here. `run` is what would still run: the recorded options less those given here.
 */
function consentRefused(path: string, run: RunOptions, evaluated: boolean): RalphError {
  const lines = recordedCommands(run).map((line) => `  ${line}`);
  return new RalphError({
    code: 'refused',
    message: `ralph resume ${path}: the recording names the commands to run; nothing was started`,
    detail: ['Resuming it would run:', ...lines, consentHint(evaluated)].join('\n'),
  });
}

/** The recorded options less the keys given here replace. */
const without = (run: RunOptions, keys: ReadonlySet<string>): RunOptions =>
  Object.fromEntries(Object.entries(run).filter(([key]) => !keys.has(key))) as RunOptions;

/** True when both paths lead to one folder (through links too); a path that does not exist is compared as written. */
function isSameFolder(a: string, b: string): boolean {
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return resolve(path);
    }
  };
  return real(a) === real(b);
}

/** Refusal: the agent was given here, but the recording's workspace, which needs consent too, is another folder. */
function workspaceRefused(path: string, recorded: string): RalphError {
  return new RalphError({
    code: 'refused',
    message: `ralph resume ${path}: the recording's run worked in ${JSON.stringify(recorded)}, not in this folder; nothing was started`,
    detail:
      'Resume it from that folder, name the workspace with --cwd, or pass --trust-recording to work where the recording says.',
  });
}

/**
 * The options the resumed run starts with: the recorded ones (never its output options), where the user consented;
 * an agent given here replaces every recorded command of the rounds, verify and binary paths included, and an
 * evaluator given here (--evaluator or --evaluator-command) the recorded evaluator with its --evaluator-reports-cost.
 * Without consent, a recording whose run had an evaluator needs both given here: the recorded evaluator is a command
 * like the agent, and dropping it would let a resumed run complete on its worker's word alone. Without consent the
 * recording's workspace is not taken either (a crafted one would point the agent at a folder of its choosing): the
 * run works in `--cwd` or the current folder, and a recording that names another folder is refused, not moved. A
 * recorded sandbox stays (nothing here turns it off) and `--sandbox` here adds one; its variables (`--sandbox-env`)
 * are taken from the recording only with consent.
 */
function resumedOptions(path: string, recorded: RunOptions, options: ResumeOptions): RunOptions {
  const agentGiven = options.agent !== undefined || options.agentCommand !== undefined;
  const evaluatorGiven = options.evaluator !== undefined || options.evaluatorCommand !== undefined;
  const trusted = options.trustRecording === true;
  // `--ask` or `--wait-for-answers` given here replace the recorded pair: `--ask` alone means its own 24h again.
  const askGiven = options.ask !== undefined || options.waitForAnswers !== undefined;
  const replaced = new Set<string>([
    ...(agentGiven ? RECORDED_COMMANDS : []),
    ...(evaluatorGiven ? RECORDED_EVALUATOR : []),
    ...(askGiven ? ['ask', 'waitForAnswers'] : []),
  ]);
  const evaluated = hasEvaluator(recorded);
  if (!trusted && (!agentGiven || (evaluated && !evaluatorGiven)))
    throw consentRefused(path, without(recorded, replaced), evaluated);
  if (!trusted && options.cwd === undefined && typeof recorded.cwd === 'string') {
    if (!isSameFolder(recorded.cwd, process.cwd())) throw workspaceRefused(path, recorded.cwd);
  }
  // Nor its sandbox's passed variables: a crafted list would hand the user's secrets to a sandboxed agent.
  const untrusted = trusted ? [] : ['cwd', 'sandboxEnv'];
  const dropped = new Set<string>([...OUTPUT_OPTIONS, ...replaced, ...untrusted]);
  return { ...without(recorded, dropped), ...definedOnly(options), record: options.record ?? path };
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

function definedOnly(options: ResumeOptions): Partial<RunOptions> {
  const { trustRecording: _consent, ...rest } = options;
  return Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
}
