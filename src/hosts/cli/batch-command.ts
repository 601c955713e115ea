import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { createActor, toPromise } from 'xstate';
import { landOnOwnBranch, type MergeSetup, scratchPath, taskWorktree } from '../../actors/merge-steps.js';
import { parseVerifyCommand } from '../../actors/verify-command.js';
import { type BatchTask, idProblem, parseTasksFile, TasksFileError } from '../../contract/batch-tasks.js';
import { DEFAULT_VERIFY_TIMEOUT_MS } from '../../contract/config.js';
import { parseDuration } from '../../contract/duration.js';
import { RalphError } from '../../contract/errors.js';
import { tasksFileAndGitHub, trustTasksWithGitHub } from '../../contract/github-task-messages.js';
import { isPlainHttpUrl } from '../../contract/plain-http-url.js';
import { maskUrlCredentials } from '../../contract/url-credentials.js';
import type { LandingDeps } from '../../github/pull-landing.js';
import { readBatchRecording } from '../../inspect/batch-recording.js';
import { type BatchOutput, batchMachine } from '../../machines/batch.machine.js';
import type { TaskEntry, TaskStatus } from '../../machines/batch-types.js';
import { GitError, gitLine } from '../../workspace/git-command.js';
import { repoUrlProblem } from '../../workspace/git-remote.js';
import { rollbackRemoteSession } from '../../workspace/git-remote-session.js';
import { rollbackSession, SessionError, taskBranch } from '../../workspace/git-session.js';
import { pruneWorktrees, removeWorktree } from '../../workspace/git-worktree.js';
import { answerWaitOf } from './batch-answers.js';
import { cleanIfAsked } from './batch-clean.js';
import { assertNoGitHubFilter, readGitHubTasks } from './batch-github-tasks.js';
import { newBatchId } from './batch-id.js';
import { LAND_AS_PULLS, type LandMode, landModeOf } from './batch-land-mode.js';
import { LandingLog } from './batch-landings.js';
import { type LoopSetup, runTaskActor, taskOptions } from './batch-loops.js';
import { localMergeQueue } from './batch-merge-queue.js';
import { landCommandLine, resumeCommandLine } from './batch-next-steps.js';
import { openBatch } from './batch-open.js';
import type { BatchOptions } from './batch-options.js';
import { exitCodeOf, landHint, type NextSteps, statusLine, summary } from './batch-output.js';
import { createBatchProgress } from './batch-progress.js';
import { type ConnectGitHub, landBatchAsPulls, tasksStillToPull } from './batch-pulls.js';
import { resolveConflicts } from './batch-resolver.js';
import { assertBatchSandbox, batchHiddenPaths, mergeSandbox } from './batch-sandbox.js';
import { type BatchTracing, startBatchTracing } from './batch-tracing.js';
import { batchRoundCapNote } from './cli-texts.js';
import { assertAgentStartable, providerFor } from './cli-tool.js';
import { evaluatorFor } from './evaluator-options.js';
import { EXIT } from './exit-codes.js';
import { guardRailConfig } from './guard-rail-options.js';
import { notifierFor, notifyTaskNeedsReview } from './notify-options.js';
import { printFailure } from './print-failure.js';
import { progressOptionsFor } from './progress.js';
import { trapBatchInterrupts } from './signals.js';
import { readTasksFile } from './tasks-file.js';
import { tasksAsTrusted } from './tasks-trust.js';

/** Statuses a task's change to goes unsaid here: a start, a loop going on, a question (said by its loop). */
const QUIET: ReadonlySet<TaskStatus> = new Set(['waiting', 'running', 'awaiting-answer']);

/** How many loops a batch runs at once unless told otherwise, and the most it takes. */
export const DEFAULT_PARALLEL = 2;
const MAX_PARALLEL = 64;

const refuse = (message: string): RalphError => new RalphError({ code: 'refused', message });

/** `--parallel`: a whole number from 1 to 64. */
function parallelOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_PARALLEL;
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_PARALLEL)
    throw refuse(`--parallel must be a whole number from 1 to ${MAX_PARALLEL} (got ${JSON.stringify(text)})`);
  return value;
}

/** `--grace-ms` for the merge queue's verify command: a whole number of milliseconds from 0 (default 5000). */
function graceOf(text: string | undefined): number {
  if (text === undefined) return 5_000;
  const value = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(value))
    throw refuse(`--grace-ms must be a whole number of milliseconds (got ${JSON.stringify(text)})`);
  return value;
}

/**
 * The tasks of the file (and its absolute path) as the command line lets them run, or a refusal naming the file and what is wrong with it
 * (a command it names without --trust-tasks among them). With `--from-github`, the tasks of the repository's issues
 * instead (no path: there is no file), which name no command of their own.
 */
async function readTasks(
  file: string | undefined,
  options: BatchOptions,
  say: (line: string) => void,
): Promise<{ tasks: BatchTask[]; path?: string }> {
  const { fromGithub } = options;
  if (fromGithub !== undefined) {
    if (file !== undefined) throw refuse(tasksFileAndGitHub());
    if (options.trustTasks === true) throw refuse(trustTasksWithGitHub('ralph batch'));
    // Resumed, the batch goes on with the tasks it took when it started: issues edited or closed since change nothing.
    if (options.resume !== undefined) {
      say(
        `resuming with the tasks the batch took from ${fromGithub}'s issues when it started (not read again)`,
      );
      return { tasks: await recordedTasks(options.resume) };
    }
    // Loaded only here: a batch from a tasks file never loads the GitHub client.
    const { connectGitHub } = await import('./github-connect.js');
    return { tasks: await readGitHubTasks({ ...options, fromGithub }, say, connectGitHub) };
  }
  assertNoGitHubFilter(options, 'ralph batch', options.land === LAND_AS_PULLS);
  if (file === undefined)
    throw refuse('ralph batch needs a tasks file: a Markdown checklist, or a JSON or YAML list of tasks');
  const use = { command: 'ralph batch', file, nothing: 'nothing was started' };
  return {
    tasks: await tasksAsTrusted(await readTasksFile(file, use.command), options, use, say),
    path: resolve(file),
  };
}

/** The tasks a batch recorded when it started, checked as a tasks file's are (a recording is a file anyone may edit). */
async function recordedTasks(recordingPath: string): Promise<BatchTask[]> {
  let recorded: { id: string; objective: string; after: string[] }[];
  try {
    recorded = readBatchRecording(readFileSync(recordingPath, 'utf8')).header.tasks;
  } catch (error) {
    throw refuse(
      `ralph batch --resume ${recordingPath}: cannot read it: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const plain = recorded.map(({ id, objective, after }) => ({ id, objective, after }));
  try {
    return await parseTasksFile('recorded.json', JSON.stringify(plain));
  } catch (error) {
    if (error instanceof TasksFileError)
      throw refuse(`ralph batch --resume ${recordingPath}: its tasks are not a batch's: ${error.message}`);
    throw error;
  }
}

/** Checks every task's agent, evaluator and guard rails before anything starts: a refusal here starts no loop. */
function checkTaskOptions(tasks: BatchTask[], options: BatchOptions, cwd: string): void {
  for (const task of tasks) {
    const own = taskOptions({ options }, task);
    const provider = providerFor(own);
    const evaluator = evaluatorFor(own);
    guardRailConfig(own);
    assertAgentStartable(provider, own, cwd);
    evaluator?.preflight?.(cwd);
  }
}

/**
 * `ralph batch --rollback <id>`: the batch's target back on its starting commit, in the repository `cwd` is in, or
 * with `--repo URL` on that remote (a fleet batch's).
 */
async function rollbackCommand(batchId: string, cwd: string, repo: string | undefined): Promise<number> {
  const idRefused = idProblem(batchId);
  if (idRefused !== null)
    throw refuse(`ralph batch --rollback ${JSON.stringify(batchId)} is refused: the batch id ${idRefused}`);
  if (repo !== undefined) {
    const problem = repoUrlProblem(repo);
    if (problem !== null)
      throw refuse(`ralph batch --repo ${JSON.stringify(maskUrlCredentials(repo))} is refused: ${problem}`);
  }
  const done =
    repo === undefined ? await rollbackSession(cwd, batchId) : await rollbackRemoteSession(repo, batchId);
  process.stdout.write(
    done.from === done.to
      ? `${done.target} is already at batch ${batchId}'s start commit ${done.to.slice(0, 12)}: nothing to roll back\n`
      : `${done.target} rolled back from ${done.from.slice(0, 12)} to ${done.to.slice(0, 12)}\n`,
  );
  return EXIT.complete;
}

/** The GitHub a `--land pr` batch opens its pull requests on; refused without `--into` (a branch GitHub has). */
async function githubForPulls(
  connect: ConnectGitHub | undefined,
  cwd: string,
  options: BatchOptions,
  say: (line: string) => void,
): Promise<LandingDeps> {
  if (options.into === undefined)
    throw refuse('--land pr needs --into <branch>: the branch on GitHub the pull requests go into');
  if (connect === undefined) {
    // The CLI's own: Octokit with the host's token, loaded only for a batch that opens pull requests.
    const { connectPulls } = await import('./github-connect.js');
    return connectPulls(cwd, options, say);
  }
  return connect(cwd, options, say);
}

/** A batch whose tasks all passed still did not do its work when a pull request of theirs could not be opened. */
function pullsExitCode(code: number, output: BatchOutput, pulls: Map<string, unknown> | null): number {
  if (pulls === null || code !== EXIT.complete) return code;
  return output.tasks.every((task) => pulls.has(task.id)) ? code : EXIT.failed;
}

/**
 * `ralph batch TASKS`: runs every task of the file as its own Ralph loop in its own git worktree, at most
 * `--parallel` at once, and lands each completed one on the target through the merge queue. The user's working
 * tree is never read or written. Resolves with the exit code: 0 every task landed, 1 some did not (listed), 2
 * refused, 4 the batch's --max-time or --max-cost ran out, 130 cancelled. `args` are the arguments after `batch`, as
 * given: a cancelled batch's summary gives them back with `--resume`.
 */
export async function batchCommand(
  tasksFile: string | undefined,
  options: BatchOptions,
  args: readonly string[],
  connectGitHub?: ConnectGitHub,
): Promise<number> {
  let landMode: LandMode;
  try {
    landMode = landModeOf(options.land, options.stack);
  } catch (error) {
    return printFailure(error, false);
  }
  if (options.reportUrl !== undefined && landMode.kind !== 'pr')
    return printFailure(
      refuse('--report-url needs --land pr: the pull requests link the report there'),
      false,
    );
  if (options.reportUrl !== undefined && !isPlainHttpUrl(options.reportUrl))
    return printFailure(
      refuse(
        `--report-url must be an http(s) URL with no credential (got ${JSON.stringify(options.reportUrl)})`,
      ),
      false,
    );
  if (options.githubRepo !== undefined && landMode.kind !== 'pr')
    return printFailure(
      refuse('--github-repo needs --land pr: it names where the pull requests are opened'),
      false,
    );
  if (landMode.kind === 'fixed-task') {
    const { landCommand } = await import('./batch-land.js');
    return landCommand(landMode.batchId, tasksFile, options);
  }
  const progress = createBatchProgress(process.stderr, progressOptionsFor(process.stderr));
  const say = (text: string) => progress.line(text);
  let tracing: BatchTracing | undefined;
  let openNotifier: ReturnType<typeof notifierFor> | undefined;
  try {
    const cwd = resolve(options.cwd ?? '.');
    const cleaned = await cleanIfAsked(tasksFile, options);
    if (cleaned !== null) return cleaned;
    if (options.rollback !== undefined) return await rollbackCommand(options.rollback, cwd, options.repo);
    if (options.repo !== undefined) throw refuse('ralph batch --repo is for --rollback of a fleet batch');
    const { tasks: read, path: tasksPath } = await readTasks(tasksFile, options, say);
    const parallel = parallelOf(options.parallel);
    if (options.resolveConflicts === true && options.verify === undefined)
      throw refuse(
        '--resolve-conflicts needs --verify: a resolved merge lands only when the verify command passes on it',
      );
    checkTaskOptions(read, options, cwd);
    const github = landMode.kind === 'pr' ? await githubForPulls(connectGitHub, cwd, options, say) : null;
    // Tasks whose pull request a person decided on (or is deciding on) are not run again; a resumed batch runs the
    // tasks it recorded (its pull requests are opened only once it settles).
    const tasks =
      github === null || options.resume !== undefined
        ? read
        : await tasksStillToPull(github, read, (taskId, text) => say(`${taskId}: ${text}`));
    if (tasks.length === 0) {
      process.stdout.write(
        'every task has its pull request decided on or under review already: nothing to run\n',
      );
      return EXIT.complete;
    }
    await assertBatchSandbox(options);
    const notifier = notifierFor(options);
    openNotifier = notifier;
    const batchTimeMs = options.maxTime === undefined ? null : parseDuration(options.maxTime, '--max-time');
    const batchCostUsd = guardRailConfig(options).maxCostUsd ?? null;
    const verifyTimeoutMs =
      options.verifyTimeout === undefined
        ? DEFAULT_VERIFY_TIMEOUT_MS
        : parseDuration(options.verifyTimeout, '--verify-timeout');
    const graceMs = graceOf(options.graceMs);
    const waitForAnswersMs = answerWaitOf(options);

    const session = await openBatch(
      tasks,
      {
        parallel,
        batchId: newBatchId(),
        ...(tasksPath === undefined ? {} : { tasksFile: tasksPath }),
        ...(options.into === undefined ? {} : { into: options.into }),
        asPulls: github !== null,
        ...(options.resume === undefined ? {} : { resume: options.resume }),
        verifyText: (task) => task.verify ?? options.verify ?? null,
        verifyTimeoutMs,
      },
      cwd,
      say,
    );
    const { batchId, folder, recorder, recordingPath } = session;
    const capNote = batchRoundCapNote(
      tasks
        .filter((task) => !session.settled.has(task.id))
        .map((task) => ({
          agent: taskOptions({ options }, task).agent,
          maxRounds: task.maxRounds ?? options.maxRounds,
        })),
    );
    if (capNote !== undefined) say(capNote);
    tracing = await startBatchTracing(batchId, say);
    const traced = tracing;
    const byId = new Map(tasks.map((task) => [task.id, task]));
    const verifyOf = (taskId: string): readonly string[] | null => {
      const task = byId.get(taskId);
      const text = task?.verify ?? options.verify;
      return text === undefined ? null : parseVerifyCommand(text);
    };
    const hide = await batchHiddenPaths(options, session.repo);
    const merge: MergeSetup = {
      batchId,
      repo: session.repo,
      target: session.target,
      folder,
      verifyOf,
      verifyTimeoutMs,
      terminationGraceMs: graceMs,
      ...mergeSandbox(options, hide),
    };
    /** What the tasks' loops said they spent, summed as each ends; null while none said. */
    let spentUsd: number | null = null;
    const loopSetup: LoopSetup = {
      batchId,
      repo: session.repo,
      target: session.target,
      start: session.start,
      folder,
      resuming: session.resumed,
      tasks: byId,
      branchOf: (taskId) => taskBranch(batchId, taskId),
      // Landed as pull requests, a task's work stays on its branch: one that comes after it starts there.
      startAfterOnBranch: github !== null,
      options,
      hide,
      say: (taskId, text) => say(`${taskId}: ${text}`),
      ...(traced === undefined ? {} : { tracing: traced }),
      ...(waitForAnswersMs === undefined ? {} : { waitForAnswersMs }),
      ...(waitForAnswersMs === undefined || !notifier.enabled ? {} : { notifier }),
      onUsage: (_taskId, usage) => {
        if (usage.costUsd !== undefined) spentUsd = (spentUsd ?? 0) + usage.costUsd;
        if (batchCostUsd !== null && spentUsd !== null && spentUsd >= batchCostUsd)
          actor.send({ type: 'CANCEL', reason: 'cost' });
      },
    };
    const loops = runTaskActor(loopSetup);
    const landings = new LandingLog();
    const queue = localMergeQueue(merge, landings, {
      ...(traced === undefined ? {} : { step: traced.mergeStep.bind(traced) }),
      resolveConflicts: (input, signal) => resolveConflicts(merge, loopSetup, input, signal),
      ...(github === null ? {} : { land: landOnOwnBranch }),
    });
    const actor = createActor(batchMachine.provide({ actors: { runTask: loops, mergeQueue: queue } }), {
      input: {
        tasks: tasks.map((task) => ({ id: task.id, after: task.after, ...session.settled.get(task.id) })),
        parallel,
        verifies: tasks.some((task) => verifyOf(task.id) !== null),
        resolves: options.resolveConflicts === true,
        branches: Object.fromEntries(tasks.map((task) => [task.id, taskBranch(batchId, task.id)])),
      },
    });
    /** Records a task's new status; a landed task's with the commit its landing moved the target to. */
    const recordTask = ({
      id,
      status,
      note,
      conflicts,
    }: Pick<TaskEntry, 'id' | 'status' | 'note' | 'conflicts'>) => {
      const commit = status === 'landed' ? landings.headOf(id) : undefined;
      recorder.task({ id, status, note, conflicts, ...(commit === undefined ? {} : { commit }) });
    };
    // A resumed batch's settled tasks were said before: only what changes now is.
    const seen = new Map<string, string>([...session.settled].map(([id, task]) => [id, task.status]));
    actor.subscribe((snapshot) => {
      traced?.onTasks(snapshot.context.tasks);
      for (const task of snapshot.context.tasks) {
        if (seen.get(task.id) === task.status) continue;
        seen.set(task.id, task.status);
        recordTask(task);
        const line = statusLine(task, session.target, github !== null);
        // A task that asks says its question itself, with its run id (batch-answers.ts).
        if (!QUIET.has(task.status)) say(`${task.id}: ${line}`);
        if (task.status === 'needs-review') {
          // Landed as pull requests, the fix goes on its draft pull request's branch, not through --land <batch-id>.
          if (github === null)
            say(
              `${task.id}: ${landHint(taskBranch(batchId, task.id), landCommandLine(batchId, task.id, options.cwd))}`,
            );
          notifyTaskNeedsReview(notifier, { batchId, taskId: task.id, line, recording: recordingPath });
        }
      }
      progress.update(snapshot.context.tasks, spentUsd);
    });
    const release = trapBatchInterrupts(() => {
      say('cancelling every loop and the merge queue (Ctrl-C again to force)');
      actor.send({ type: 'CANCEL', reason: 'interrupted' });
    });
    const timer =
      batchTimeMs === null
        ? undefined
        : setTimeout(() => actor.send({ type: 'CANCEL', reason: 'time' }), batchTimeMs);
    let output: BatchOutput;
    try {
      actor.start();
      output = await toPromise(actor);
    } finally {
      clearTimeout(timer);
      release();
      progress.stop();
    }
    // A landing a cancel cut short in the machine may have moved the target all the same: the target says.
    for (const taskId of await landings.landedAfterAll(output, session.repo, session.target)) {
      recordTask({ id: taskId, status: 'landed', note: null, conflicts: [] });
      say(`${taskId}: landed on ${session.target} (the target had moved when the batch was cancelled)`);
    }
    recorder.settled(output.cancelReason);
    recorder.close();
    const pulls =
      github === null
        ? null
        : await landBatchAsPulls(
            github,
            {
              recordingPath,
              target: session.target,
              stack: landMode.kind === 'pr' && landMode.stack,
              reportUrl: options.reportUrl ?? null,
              recording: relative(session.repo, recordingPath),
              hasChanges: async (branch) =>
                (await gitLine(session.repo, [
                  'rev-list',
                  '--count',
                  `${session.start}..refs/heads/${branch}`,
                ])) !== '0',
              headOf: (branch) =>
                gitLine(session.repo, ['rev-parse', '--verify', `refs/heads/${branch}^{commit}`]),
            },
            (taskId, text) => say(`${taskId}: ${text}`),
          );
    // Landed tasks' worktrees went as they landed; cancelled ones go now (their work is committed on their branch).
    const kept = new Set<string>();
    const workOnBranch = new Set<string>();
    for (const task of output.tasks) {
      const tree = taskWorktree(folder, task.id);
      if (!existsSync(tree)) continue;
      if (task.status === 'needs-review' || task.status === 'failed') kept.add(task.id);
      else {
        await removeWorktree(session.repo, tree);
        if (task.status === 'cancelled') workOnBranch.add(task.id);
      }
    }
    if (existsSync(scratchPath(merge))) await removeWorktree(session.repo, scratchPath(merge));
    await pruneWorktrees(session.repo);
    if (output.cancelReason === 'time') say(`the batch's --max-time ran out`);
    if (output.cancelReason === 'cost')
      say(`the batch's --max-cost was reached ($${(spentUsd ?? 0).toFixed(2)})`);
    const next: NextSteps = {
      land: (taskId) => landCommandLine(batchId, taskId, options.cwd),
      resume: output.cancelReason === null ? null : resumeCommandLine(args, recordingPath),
      ...(pulls === null
        ? {}
        : { pulls: new Map([...pulls].map(([taskId, landed]) => [taskId, landed.pull])) }),
    };
    process.stdout.write(summary(output, folder, batchId, session.target, kept, workOnBranch, next));
    process.stdout.write(`recording ${recordingPath}; its page: ralph report ${recordingPath}\n`);
    const code = pullsExitCode(exitCodeOf(output, output.cancelReason), output, pulls);
    await traced?.end(code !== EXIT.complete);
    // The tasks' notifications get a short while to arrive, and no longer.
    await notifier.close();
    return code;
  } catch (error) {
    progress.stop();
    await tracing?.end(true);
    // A batch that fails after it began notifying still gives its notifications their short while, and no longer.
    await openNotifier?.close();
    if (error instanceof SessionError) return printFailure(refuse(`ralph batch: ${error.message}`), false);
    if (error instanceof GitError) return printFailure(refuse(`ralph batch: ${error.message}`), false);
    return printFailure(error, false);
  }
}
