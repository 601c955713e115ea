import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fromCallback } from 'xstate';
import { taskWorktree } from '../actors/merge-steps.js';
import { unansweredLine } from '../contract/answer-messages.js';
import type { BatchTask } from '../contract/batch-tasks.js';
import { errorText } from '../contract/error-text.js';
import { RalphError } from '../contract/errors.js';
import { guardRailProgressText } from '../contract/guard-rail-messages.js';
import type { RalphEnvelope } from '../contract/types.js';
import type { RalphUsage } from '../contract/usage.js';
import type { RunTaskEvent, RunTaskInput, TaskAnswerEvent, TaskOutcome } from '../machines/batch-types.js';
import type { Notifier } from '../notify/notifier.js';
import { runNotifications } from '../notify/run-notifications.js';
import { AGENT_PRESETS, type AgentOptions } from '../run/agent-options.js';
import { answerFolderSource } from '../run/answer-folder.js';
import type { EvaluatorOptions } from '../run/evaluator-options.js';
import type { GuardRailOptions } from '../run/guard-rail-options.js';
import { parseNumberOption } from '../run/numbers.js';
import { createOptionsTool } from '../run/options-tool.js';
import type { SandboxOptions } from '../run/sandbox-options.js';
import { gitLine } from '../workspace/git-command.js';
import { commitTaskLeftovers } from '../workspace/git-commit.js';
import { addWorktree, reopenWorktree } from '../workspace/git-worktree.js';
import { taskCommitMessage, taskTrailerValue } from '../workspace/task-commit-message.js';
import { SlotGate, taskAnswerSource } from './answers.js';
import { priorRun } from './resume.js';
import type { BatchTracing } from './tracing.js';

/** What every loop of a batch shares: the repository, the batch's branches and folder, the run options. */
export interface LoopSetup {
  batchId: string;
  repo: string;
  target: string;
  /** The commit tasks without `after` start from. */
  start: string;
  folder: string;
  /** True for a resumed batch: worktrees and run recordings a crashed process left are taken up, not made anew. */
  resuming: boolean;
  tasks: ReadonlyMap<string, BatchTask>;
  branchOf(taskId: string): string;
  /**
   * Whether a task that comes after others starts on the branch of the first of them (`--land pr`: their work is
   * there, not on the target) rather than on the target's head.
   */
  startAfterOnBranch?: boolean;
  /** The batch's options; with an evaluator, every task's reported completion must be accepted by it to land. */
  options: AgentOptions & GuardRailOptions & EvaluatorOptions & SandboxOptions & { maxRounds?: string };
  /** With `--sandbox`: what a task's processes must not see besides ralph's own state (batch-sandbox.ts). */
  hide: readonly string[];
  /** One line of the batch's progress. */
  say(taskId: string, text: string): void;
  /** What a settled run said it used. */
  onUsage(taskId: string, usage: RalphUsage): void;
  /** The batch's trace, when the environment asks for traces: each task's run is traced under it. */
  tracing?: Pick<BatchTracing, 'runTracer'>;
  /** With `--ask`: how long a task's blocked loop waits for a person's answer (ms), its slot free meanwhile. */
  waitForAnswersMs?: number;
  /** With `--ask --notify`: where a task's question goes as `run.question`, so a person away from the terminal hears it. */
  notifier?: Notifier;
}

/** A task's loop's line to its batch machine while it waits for a person: its events, and the slot it gets back. */
interface AnswerLine {
  gate: SlotGate;
  send(event: TaskAnswerEvent): void;
}

/** The options of one task's loop: the batch's, with the task's own agent and verify command in their place. */
export function taskOptions(setup: Pick<LoopSetup, 'options'>, task: BatchTask): LoopSetup['options'] {
  const options = { ...setup.options };
  if (task.agent !== undefined) {
    delete options.agent;
    delete options.agentCommand;
    if ((AGENT_PRESETS as readonly string[]).includes(task.agent))
      options.agent = task.agent as AgentOptions['agent'];
    else options.agentCommand = task.agent;
  }
  if (task.verify !== undefined) options.verify = task.verify;
  return options;
}

/** The message of the commit that keeps what a task's agents left uncommitted: its objective is the subject. */
const leftoverMessage = (batchId: string, task: BatchTask, runId: string | null): string =>
  taskCommitMessage({ batchId, taskId: task.id, objective: task.objective, runId });

/** Commits what a task's agents left, with its trailer; `final` once its loop completed (see commitTaskLeftovers). */
const commitTask = (
  setup: LoopSetup,
  task: BatchTask,
  runId: string | null,
  final: boolean,
): Promise<string> =>
  commitTaskLeftovers(
    taskWorktree(setup.folder, task.id),
    leftoverMessage(setup.batchId, task, runId),
    taskTrailerValue(setup.batchId, task.id),
    { final },
  );

/** Where a task's run is recorded: beside the batch's worktrees, for `ralph report`. */
export const runRecordingPath = (folder: string, taskId: string): string =>
  join(folder, 'runs', `${taskId}.jsonl`);

/**
 * Why a task's loop that did not complete ended so: when its last round's reported completion was rejected by the
 * evaluator (at the round cap), that rejection and its findings, since the work is done only in its worker's words;
 * else the report's blocker or summary.
 */
export function endedNote(envelope: RalphEnvelope): string {
  const { report, evaluation, rounds, status } = envelope.result;
  if (status === 'budget-limited' && evaluation?.verdict === 'reject' && evaluation.round === rounds)
    return `the evaluator ${evaluation.evaluator} rejected the completion reported in round ${rounds}: ${evaluation.findings.join('; ')}`;
  const why = report.blocker ?? report.summary;
  // A loop that waited for a person and got no answer says so: the blocker alone reads as if nobody was asked.
  return envelope.result.question === undefined
    ? why
    : `${why} (${unansweredLine(envelope.result.question)})`;
}

/** Runs one task's loop to its end in a new worktree; resolves with how it ended. */
async function runLoop(
  setup: LoopSetup,
  input: RunTaskInput,
  signal: AbortSignal,
  line: AnswerLine,
): Promise<TaskOutcome> {
  const task = setup.tasks.get(input.taskId) as BatchTask;
  const worktree = taskWorktree(setup.folder, task.id);
  // A task that comes after others starts where they landed: the target's head now, or (landing as pull requests)
  // the branch of the first task it comes after.
  const startRef =
    setup.startAfterOnBranch === true && task.after[0] !== undefined
      ? setup.branchOf(task.after[0])
      : setup.target;
  const start = input.startFromTarget
    ? await gitLine(setup.repo, ['rev-parse', '--verify', `refs/heads/${startRef}^{commit}`])
    : setup.start;
  if (setup.resuming) await reopenWorktree(setup.repo, worktree, setup.branchOf(task.id), start);
  else await addWorktree(setup.repo, worktree, setup.branchOf(task.id), start);
  const prior = setup.resuming
    ? priorRun(runRecordingPath(setup.folder, task.id))
    : ({ kind: 'none' } as const);
  if (prior.kind === 'completed') {
    setup.say(
      task.id,
      `its loop completed before the crash (run ${prior.runId}); it goes to the merge queue`,
    );
    const head = await commitTask(setup, task, prior.runId, true);
    return { kind: 'completed', runId: prior.runId, rounds: prior.rounds, head };
  }
  const options = { ...taskOptions(setup, task), cwd: worktree };
  const tracer = setup.tracing?.runTracer(task.id);
  const { tool, agent } = createOptionsTool(options, {
    agentId: `batch:${setup.batchId}:${task.id}`,
    ...(tracer === undefined ? {} : { traceProvider: tracer.traceProvider }),
    hide: setup.hide,
    ...(setup.waitForAnswersMs === undefined ? {} : { waitForAnswersMs: setup.waitForAnswersMs }),
  });
  const recording = runRecordingPath(setup.folder, task.id);
  // The question waits in ~/.ralph/asks/<run id>/ naming the task's run recording: `ralph status <batch>` finds it so.
  const answers =
    setup.waitForAnswersMs === undefined
      ? undefined
      : taskAnswerSource(task.id, answerFolderSource({ recording }), line.gate, {
          send: line.send,
          say: (text) => setup.say(task.id, text),
        });
  const maxRounds =
    task.maxRounds ?? (options.maxRounds === undefined ? undefined : parseNumberOption(options.maxRounds));
  mkdirSync(join(setup.folder, 'runs'), { recursive: true });
  setup.say(
    task.id,
    prior.kind === 'resume'
      ? `resuming run ${prior.recorded.runId} after round ${prior.recorded.point.round} in ${worktree}`
      : `started in ${worktree} on ${setup.branchOf(task.id)}`,
  );
  let runId: string | null = null;
  let used: RalphUsage | undefined;
  try {
    const args =
      prior.kind === 'resume'
        ? (prior.recorded.args as Record<string, unknown>)
        : { objective: task.objective, ...(maxRounds === undefined ? {} : { maxRounds }) };
    const envelope = await tool.execute(args, {
      ...(prior.kind === 'resume'
        ? { resume: { runId: prior.recorded.runId, point: prior.recorded.point } }
        : {}),
      agent,
      signal,
      record: recording,
      ...(answers === undefined ? {} : { answers }),
      onProgress: (event) => {
        tracer?.onProgress(event);
        runId = event.runId;
        if (event.type === 'question-asked' && setup.notifier !== undefined)
          runNotifications(setup.notifier, { link: recording }).onProgress(event);
        if (event.type === 'round-started') setup.say(task.id, `round ${event.round}/${event.maxRounds}`);
        // The evaluator's start and verdict: whether the task's completion goes to the merge queue is its call.
        if (event.type === 'evaluator-started' || event.type === 'evaluator-finished')
          setup.say(task.id, `round ${event.round}/${event.maxRounds} ${guardRailProgressText(event)}`);
      },
      onUsage: (usage) => {
        used = usage;
        setup.onUsage(task.id, usage);
      },
    });
    tracer?.finish({ envelope, ...(used === undefined ? {} : { usage: used }) });
    runId = envelope.runId;
    const { status, rounds } = envelope.result;
    const head = await commitTask(setup, task, runId, status === 'complete');
    if (status === 'complete') return { kind: 'completed', runId, rounds, head };
    return { kind: 'ended', runId, status, note: endedNote(envelope) };
  } catch (error) {
    tracer?.finish({ error, ...(used === undefined ? {} : { usage: used }) });
    // Nothing an agent wrote is lost: a cancelled or failed loop's work is committed on its branch too.
    await commitTask(setup, task, runId, false).catch(() => undefined);
    if (error instanceof RalphError && error.code === 'cancelled') return { kind: 'cancelled' };
    return { kind: 'ended', runId, status: 'failed', note: errorText(error) };
  }
}

/**
 * The batch's run actor: one task's Ralph loop (the tool, so the run machine unchanged) in its own worktree on its
 * own branch. It reports TASK.SETTLED once the run has settled and its leftovers are committed; CANCEL aborts the
 * run, which settles only once its agent has stopped. With `--ask` it reports TASK.ASKED and TASK.ANSWERED while
 * its run waits for a person, and takes SLOT when it may go on (batch-answers.ts).
 */
export function runTaskActor(setup: LoopSetup) {
  return fromCallback<RunTaskEvent, RunTaskInput>(({ input, sendBack, receive }) => {
    const controller = new AbortController();
    const gate = new SlotGate();
    receive((event) => (event.type === 'SLOT' ? gate.grant() : controller.abort()));
    runLoop(setup, input, controller.signal, { gate, send: sendBack })
      .catch(
        (error: unknown): TaskOutcome => ({
          kind: 'ended',
          runId: null,
          status: 'failed',
          note: errorText(error),
        }),
      )
      .then((outcome) => sendBack({ type: 'TASK.SETTLED', taskId: input.taskId, outcome }));
  });
}
