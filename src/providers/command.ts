import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { errorText } from '../contract/error-text.js';
import { RalphError } from '../contract/errors.js';
import { positiveSafeInteger } from '../contract/integers.js';
import { agentCommandInvalid } from '../contract/messages.js';
import { isMissingReport } from '../contract/round-report.js';
import type { ChildRequest, ChildRun, ChildStartOptions, SubagentProvider } from '../contract/types.js';
import { unreadableReport } from '../contract/unreadable-round-report.js';
import { type RalphUsage, usageOf } from '../contract/usage.js';
import { packageRoot } from '../package-root.js';
import {
  assertDepthAllowed,
  currentDepth,
  DEFAULT_DEPTH_LIMIT,
  RALPH_DEPTH_ENV,
} from '../process/nesting-depth.js';
import { resolveProgram } from '../process/program-check.js';
import { ROUND_OWNER_FILE, sweepOrphanedRoundsOnce, takeRoundFolder } from '../process/round-folder.js';
import { foldersNamedBy, processSandbox } from '../process/sandbox-spec.js';
import { type ShellWordsProblem, splitShellWords } from '../process/shell-words.js';
import { type GroupProcess, startInGroup } from '../process/start-in-group.js';
import { isDirectory } from '../workspace/directory.js';
import { readHead } from '../workspace/file-head.js';
import { lastJsonObject } from './last-json-object.js';
import { type UsageLimit, UsageLimitError } from './usage-limit.js';

/** Default bound on what is kept of each of a child's output streams. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/** The environment variable carrying the run's handoff cap to a round's agent (its report tool checks it). */
export const RALPH_MAX_HANDOFF_CHARS_ENV = 'RALPH_MAX_HANDOFF_CHARS';

/**
 * The environment variable that tells an independent evaluator's child its role (`evaluator`): one agent program
 * can then both work and judge, answering the verdict schema in RALPH_SCHEMA_FILE. A worker's environment has none.
 */
export const RALPH_ROLE_ENV = 'RALPH_ROLE';

/** How much of a failed child's stderr (or stdout) its error quotes. */
const FAILURE_TAIL_CHARS = 2_000;

/** What a finished child left behind, as a report reader sees it. */
export interface CommandOutputs {
  /** The path in RALPH_REPORT_FILE (it may not exist). */
  reportFile: string;
  /** The path in RALPH_USAGE_FILE (it may not exist); always set by the command provider. */
  usageFile?: string;
  /** The kept tail of standard output. */
  stdout: string;
  /** The kept tail of standard error. */
  stderr: string;
  exitCode: number;
}

/** What a preset may build a round's extra arguments from. */
export interface CommandArgsContext {
  request: ChildRequest;
  /** The round's report JSON Schema, written to a fresh file (also in RALPH_SCHEMA_FILE). */
  schemaFile: string;
  /** A fresh path for the report (also in RALPH_REPORT_FILE). */
  reportFile: string;
}

/** How to run an agent command as a fresh child each round. */
export interface CommandProviderOptions {
  /** Registry name; default 'command'. */
  name?: string;
  /** The command: an argv array, or one string split into argv by POSIX shell-word rules (never run by a shell). */
  command: string | readonly string[];
  /** Extra environment for the child, on top of the parent's. */
  env?: Record<string, string>;
  /** Bound on what is kept of each of stdout and stderr (the tail is kept); default 1 MiB. */
  maxOutputBytes?: number;
  /** Recursion guard: `start` refuses when this process already runs at this Ralph depth; default 3. */
  depthLimit?: number;
  /** Preset hook: turn the finished process's outputs into the raw report (default: report file, else last JSON object on stdout). */
  readReport?: (outputs: CommandOutputs) => Promise<unknown>;
  /**
   * Preset hook: what the finished process said it used (default: the JSON object in RALPH_USAGE_FILE, if the
   * child wrote one). Read once the report was; a throw or null means nothing is known.
   */
  readUsage?: (outputs: CommandOutputs) => Promise<RalphUsage | null>;
  /**
   * Preset hook: what a failed child said on stderr, as its failure quotes it (default: its stderr), for an agent
   * that reports its errors elsewhere (codex --json puts them on its stdout event stream).
   */
  failureStderr?: (outputs: CommandOutputs) => string;
  /**
   * Preset hook: whether the finished process ended on a usage or rate limit, and when it resets. A limit rejects
   * the report with a UsageLimitError (a child failure whose detail says so), whatever the exit code.
   */
  usageLimitOf?: (outputs: CommandOutputs) => UsageLimit | null;
  /** Its agents say what each round cost (`costUsd`), so a cost budget can hold (default false). */
  reportsCost?: boolean;
  /** Preset hook: arguments appended to the command for one round, built from the request and its files. */
  args?: (context: CommandArgsContext) => readonly string[];
  /**
   * Preset hook: environment for one round, on top of `env` (e.g. a per-round home for the agent's own state,
   * in the round's folder, so nothing is written into the user's configuration). Called before `args`.
   */
  roundEnv?: (context: CommandArgsContext) => Record<string, string>;
  /** The environment the child inherits and the depth guard reads; default `process.env`. */
  baseEnv?: NodeJS.ProcessEnv;
  /** What the agent's CLI needs inside ralph's sandbox besides the workspace and the round's folder. */
  sandboxNeeds?: CommandSandboxNeeds;
}

/** What a preset's CLI needs inside the sandbox: the files it keeps its state in and the variables it reads. */
export interface CommandSandboxNeeds {
  /** Paths relative to the home (or absolute), bound writable when they exist (`.claude`, `.claude.json`). */
  home?: readonly string[];
  /** Variables whose value is a folder the CLI keeps its state in (`CODEX_HOME`), bound writable when it exists. */
  folderVars?: readonly string[];
  /** Variables (or `PREFIX*`) the CLI reads: its API key, base URL, settings. */
  env?: readonly string[];
}

/** What every preset of the command provider accepts. */
export interface CommandPresetOptions
  extends Pick<CommandProviderOptions, 'env' | 'maxOutputBytes' | 'depthLimit' | 'baseEnv'> {
  /** The executable; default: the preset's program name, found on PATH. */
  path?: string;
  /** Arguments added to the preset's own (e.g. `['--model', 'sonnet']`). */
  extraArgs?: string[];
  /**
   * Runs the CLI in its own read-only (no-edit) mode instead of its editing mode, for a child that must not change
   * the workspace (an evaluator); each preset's doc names the flags. Default false: the preset's usual argv.
   */
  readOnly?: boolean;
}

/**
 * A preset's mode option (a permission mode, a sandbox, an autonomy level) for one child: the given value or the
 * editing default, or, when `readOnly`, the CLI's read-only mode; a given value other than that one is refused, as it
 * would hand the child back the editing read-only takes away.
 */
export function presetMode<T>(
  preset: string,
  option: string,
  given: T | undefined,
  modes: { editing: T; readOnly: T },
  readOnly = false,
): T {
  if (!readOnly) return given ?? modes.editing;
  if (given !== undefined && given !== modes.readOnly)
    throw new RangeError(`the ${preset} preset cannot be read-only with ${option} ${JSON.stringify(given)}`);
  return modes.readOnly;
}

/** The command-provider options a preset passes through unchanged. */
export function passThrough(options: CommandPresetOptions): Partial<CommandProviderOptions> {
  const out: Partial<CommandProviderOptions> = {};
  if (options.env !== undefined) out.env = options.env;
  if (options.maxOutputBytes !== undefined) out.maxOutputBytes = options.maxOutputBytes;
  if (options.depthLimit !== undefined) out.depthLimit = options.depthLimit;
  if (options.baseEnv !== undefined) out.baseEnv = options.baseEnv;
  return out;
}

/** How a command child's process ended: its exit code, or the signal that ended it. */
export interface CommandExit {
  code: number | null;
  signal: string | null;
}

/** A started command child: the run plus the process id (also the id of its process group). */
export interface CommandChildRun extends ChildRun {
  pid: number;
  /** How its process ended, once it did (before `report` settles); null while it runs. */
  exit(): CommandExit | null;
}

/**
 * Splits a command line into argv by POSIX shell-word rules (quotes, backslashes, `$VAR` from `env`), without a
 * shell. Anything only a shell could do (pipes, redirections, `;`, `&&`, globs, comments, an unset variable) is
 * refused with a `refused` RalphError that says what it found.
 */
export function splitCommand(command: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const words = splitShellWords(command, (name) => env[name]);
  if ('argv' in words) return words.argv;
  throw new RalphError({
    code: 'refused',
    message: agentCommandInvalid(command, agentCommandProblem(words.problem)),
  });
}

/** What `--agent-command` says of what only a shell could run in it. */
function agentCommandProblem(problem: ShellWordsProblem): string {
  switch (problem.kind) {
    case 'variable':
      return `environment variable $${problem.name} is not set`;
    case 'comment':
      return 'it contains a comment (#); quote the # if it is part of an argument';
    case 'glob':
      return `it contains the glob ${problem.pattern}; it is not run by a shell, so quote it or expand it first`;
    case 'operator':
      return `it contains the shell operator ${problem.op}; it is not run by a shell, so quote it or drop it`;
    case 'no-program':
      return 'it names no program';
  }
}

/**
 * How a round's files are opened: never through a symbolic link, which a (sandboxed) agent could leave at the path
 * to have ralph read for it a file it cannot see (its own key, a credentials file) into the run's output.
 */
const NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW;

/** Thrown for a round's file that is a symbolic link: ralph does not read through it. */
class RoundFileIsLinkError extends Error {
  constructor(path: string) {
    super(`${path} is a symbolic link, which ralph does not follow`);
  }
}

/**
 * Reads at most `limit` bytes of a regular file synchronously (an open, a stat, a read and a close: tens of µs,
 * where fs/promises makes each a trip through the thread pool); undefined when it does not exist, null when it is
 * not a regular file. The open does not block: a FIFO planted at the path must not stall the event loop. A
 * symbolic link at the path is refused (RoundFileIsLinkError).
 */
function readRegularFileBounded(path: string, limit: number): string | undefined | null {
  let fd: number;
  try {
    fd = openSync(path, NO_FOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new RoundFileIsLinkError(path);
    return null;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return null;
    // Sized to the file, not the limit: a report is a few kB, the limit a MiB.
    const buffer = Buffer.alloc(Math.min(stat.size, limit));
    const bytesRead = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * The command agent protocol's usage: the JSON object in the usage file, its fields that are numbers (see
 * RalphUsage); null when the child wrote none, or nothing readable (a usage file never fails a round).
 */
export function defaultUsageReader(maxBytes = DEFAULT_MAX_OUTPUT_BYTES) {
  return async ({ usageFile }: CommandOutputs): Promise<RalphUsage | null> => {
    if (usageFile === undefined) return null;
    try {
      const text = await readBounded(usageFile, maxBytes);
      return text === undefined ? null : usageOf(JSON.parse(text));
    } catch {
      return null;
    }
  };
}

/** Reads at most `limit` bytes of a file; undefined when it does not exist. */
async function readBounded(path: string, limit: number): Promise<string | undefined> {
  const quick = readRegularFileBounded(path, limit);
  if (quick !== null) return quick;
  // Not a regular file (or not openable without blocking): read it the general way, off the event loop.
  let handle: FileHandle;
  try {
    handle = await open(path, NO_FOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new RoundFileIsLinkError(path);
    throw error;
  }
  try {
    return (await readHead(handle, limit)).text;
  } finally {
    await handle.close();
  }
}

/**
 * The protocol's report: the JSON in the report file, else the last JSON object on stdout, else undefined (a missing
 * report). A report file that does not parse is a malformed report whose problem is the parse error: the child meant
 * to report there, so stdout is not searched instead.
 */
export function defaultReportReader(maxBytes = DEFAULT_MAX_OUTPUT_BYTES) {
  return async ({ reportFile, stdout }: CommandOutputs): Promise<unknown> => {
    let text: string | undefined;
    try {
      text = await readBounded(reportFile, maxBytes);
    } catch (error) {
      if (error instanceof RoundFileIsLinkError)
        return unreadableReport('malformed', `the report file ${error.message}`);
      throw error;
    }
    if (text !== undefined && text.trim() !== '') {
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        return unreadableReport(
          'malformed',
          `the report file ${reportFile} is not JSON: ${errorText(error)}`,
        );
      }
    }
    return lastJsonObject(stdout);
  };
}

function tailOf(text: string): string {
  const trimmed = text.trimEnd();
  return trimmed.length <= FAILURE_TAIL_CHARS ? trimmed : `…${trimmed.slice(-FAILURE_TAIL_CHARS)}`;
}

/** How many of the last lines of each stream a child that left no report is quoted with. */
const SILENT_TAIL_LINES = 20;

/** The last lines of a stream, bounded in lines and in characters; `(nothing)` for a stream that stayed empty. */
function lastLinesOf(text: string): string {
  const lines = text.trimEnd().split('\n');
  const tail = tailOf(lines.slice(-SILENT_TAIL_LINES).join('\n'));
  return tail === ''
    ? '(nothing)'
    : `${lines.length > SILENT_TAIL_LINES && !tail.startsWith('…') ? '…\n' : ''}${tail}`;
}

/**
 * Why a child that exited 0 left no report: how the protocol takes one (when the preset does not read its own), then
 * the end of what the child printed, so a newcomer's agent that printed its report in the wrong place shows it.
 */
function noReportProblem(out: CommandOutputs, protocol: boolean): string {
  return [
    protocol
      ? 'the agent exited 0 without a report; a command agent reports by writing its JSON report to the file named in $RALPH_REPORT_FILE, or by printing it as the last JSON object on stdout'
      : 'the agent exited 0 without a report',
    `stdout ends with:\n${lastLinesOf(out.stdout)}`,
    `stderr ends with:\n${lastLinesOf(out.stderr)}`,
  ].join('\n');
}

/** Why a child that did not exit 0 failed: its status and the end of what it said. */
function failureOf(program: string, code: number | null, signal: NodeJS.Signals | null, out: CommandOutputs) {
  const status = signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
  const stderr = tailOf(out.stderr);
  const stdout = tailOf(out.stdout);
  const said =
    stderr !== '' ? `; stderr ends with:\n${stderr}` : stdout !== '' ? `; stdout ends with:\n${stdout}` : '';
  return new Error(`agent command ${program} ${status}${said}`);
}

/** Ralph's own package, when its files are there: the example agent and `ralph report-tool` run from it. */
function ralphPackage(): string[] {
  try {
    return [packageRoot('the sandbox')];
  } catch {
    return [];
  }
}

/** Said before the spawn: a missing folder would otherwise surface as the command not being found. */
function assertDirectory(cwd: string): void {
  if (!isDirectory(cwd)) throw new Error(`the workspace ${cwd} is not a folder`);
}

/**
 * A provider that starts one fresh process per round, following the command agent protocol: argv without a shell,
 * in the calling agent's folder, in a process group of its own; the round prompt on stdin; RALPH_RUN_ID,
 * RALPH_ROUND, RALPH_MAX_ROUNDS, RALPH_SCHEMA_FILE, RALPH_REPORT_FILE, RALPH_USAGE_FILE, RALPH_MAX_HANDOFF_CHARS and
 * RALPH_DEPTH in its environment, and RALPH_ROLE=evaluator for an evaluator's child (the usage file is optional: what
 * the child used, read once it reported). Exit 0 →
 * the report (file, else last JSON object on stdout); non-zero exit or death by a signal → the report rejects. On
 * abort the group gets SIGTERM, then SIGKILL after the grace, and the report settles only once the process exited.
 * Nothing the round started outlives it: group members left behind by an exited child get the same treatment, and
 * a host that dies of an uncaught exception or process.exit() SIGKILLs its groups on the way out. The round's files
 * live in a `ralph-round-*` folder in os.tmpdir() that records its host and group, renamed away at the round's end
 * (so no path a round saw outlives it) and reused by the next round, removed once idle or at exit; what a host
 * killed by SIGKILL leaves (that folder, its agent) is cleaned up by the first start in a later process.
 */
export function commandProvider(options: CommandProviderOptions): SubagentProvider {
  const baseEnv = options.baseEnv ?? process.env;
  const argv =
    typeof options.command === 'string' ? splitCommand(options.command, baseEnv) : [...options.command];
  const [program, ...programArgs] = argv;
  if (program === undefined || program === '') {
    throw new RalphError({
      code: 'refused',
      message: agentCommandInvalid(argv.join(' '), 'it names no program'),
    });
  }
  const maxOutputBytes = positiveSafeInteger(
    options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
    'maxOutputBytes',
  );
  const depthLimit = positiveSafeInteger(options.depthLimit ?? DEFAULT_DEPTH_LIMIT, 'depthLimit');
  const readReport = options.readReport ?? defaultReportReader(maxOutputBytes);
  const readUsage = options.readUsage ?? defaultUsageReader(maxOutputBytes);
  const shown = JSON.stringify(program);

  async function start(
    request: ChildRequest,
    { signal, terminationGraceMs, env, sandbox }: ChildStartOptions,
  ) {
    assertDepthAllowed(depthLimit, baseEnv);
    if (signal.aborted) throw new Error('the round was cancelled before its child started');
    assertDirectory(request.cwd);
    // What a host killed by SIGKILL left behind (its agents, its round folders) is cleaned up here, once.
    await sweepOrphanedRoundsOnce();

    const folder = takeRoundFolder(`${JSON.stringify(request.outputSchema, null, 2)}\n`);
    const { schemaFile, reportFile, usageFile } = folder;
    let child: GroupProcess;
    try {
      const context = { request, schemaFile, reportFile };
      const roundEnv = options.roundEnv?.(context) ?? {};
      const extra = options.args?.(context) ?? [];
      const needs = options.sandboxNeeds ?? {};
      const boxed =
        sandbox === undefined
          ? undefined
          : processSandbox(
              sandbox,
              {
                cwd: request.cwd,
                writesWorkspace: request.role !== 'evaluator',
                writable: [
                  folder.dir,
                  ...foldersNamedBy({ ...baseEnv, ...options.env }, needs.folderVars ?? []),
                ],
                // The record of who owns the round's processes is the sweep's to trust, never the agent's to write.
                readOnly: [join(folder.dir, ROUND_OWNER_FILE)],
                home: needs.home ?? [],
                programs: [...argv, ...extra, ...ralphPackage()],
                env: [...(needs.env ?? []), ...(needs.folderVars ?? [])],
              },
              baseEnv,
            );
      child = await startInGroup([program as string, ...programArgs, ...extra], {
        cwd: request.cwd,
        ...(boxed === undefined ? {} : { sandbox: boxed.spec }),
        env: {
          ...(boxed === undefined ? baseEnv : boxed.env),
          ...options.env,
          ...roundEnv,
          ...env,
          RALPH_RUN_ID: request.runId,
          RALPH_ROUND: String(request.round),
          RALPH_MAX_ROUNDS: String(request.maxRounds),
          RALPH_SCHEMA_FILE: schemaFile,
          RALPH_REPORT_FILE: reportFile,
          RALPH_USAGE_FILE: usageFile,
          ...(request.maxHandoffChars === undefined
            ? {}
            : { [RALPH_MAX_HANDOFF_CHARS_ENV]: String(request.maxHandoffChars) }),
          ...(request.role === 'evaluator' ? { [RALPH_ROLE_ENV]: 'evaluator' } : {}),
          [RALPH_DEPTH_ENV]: String(currentDepth(baseEnv) + 1),
        },
        input: request.prompt,
        maxOutputBytes,
        graceMs: terminationGraceMs,
        signal,
        onSpawn: (pid) => folder.recordGroup(pid),
      }).catch((error: Error) => {
        throw new Error(`could not start agent command ${shown}: ${error.message}`, { cause: error });
      });
    } catch (error) {
      folder.release();
      throw error;
    }
    // A sandboxed agent could leave in its round folder what a later round, maybe another run's, would find there.
    const reuse = sandbox === undefined;

    /** What the child said it used, once it exited (whether or not it reported). */
    let usage: RalphUsage | null = null;
    let exit: CommandExit | null = null;
    // The round is over only when its whole group is: `exited` waits for that, within a bound.
    const report = child.exited.then(async ({ code, signal: killedBy, stdout, stderr }) => {
      exit = { code, signal: killedBy };
      try {
        const outputs: CommandOutputs = {
          reportFile,
          usageFile,
          stdout: stdout.text(),
          stderr: stderr.text(),
          exitCode: code ?? -1,
        };
        // Read first: what the agent said it spent counts whether or not a report comes (a usage limit, a failed
        // exit, a result that is an error).
        usage = await readUsage(outputs).catch(() => null);
        const limit = killedBy === null ? (options.usageLimitOf?.(outputs) ?? null) : null;
        if (limit !== null) throw new UsageLimitError(options.name ?? 'command', limit);
        if (killedBy !== null || code !== 0) {
          const said = options.failureStderr?.(outputs) ?? outputs.stderr;
          throw failureOf(shown, code, killedBy, { ...outputs, stderr: said });
        }
        const raw = await readReport(outputs);
        return isMissingReport(raw)
          ? unreadableReport('missing', noReportProblem(outputs, options.readReport === undefined))
          : raw;
      } finally {
        folder.release({ reuse });
      }
    });
    // The machine always consumes the report; this only keeps an abandoned one from being an unhandled rejection.
    report.catch(() => {});

    const run: CommandChildRun = {
      id: `${request.runId}-r${request.round}-pid${child.pid}`,
      pid: child.pid,
      report,
      usage: () => usage,
      exit: () => exit,
    };
    return run;
  }

  return {
    name: options.name ?? 'command',
    capabilities: {
      structuredOutput: true,
      sandbox: true,
      inheritsParentContext: false,
      ...(options.reportsCost === true ? { reportsCost: true } : {}),
    },
    start,
    preflight(cwd) {
      resolveProgram(program as string, cwd, { ...baseEnv, ...options.env });
    },
  };
}
