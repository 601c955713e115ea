import type { Command } from 'commander';
import { parseVerifyCommand } from '../../actors/verify-command.js';
import { parseDuration } from '../../contract/duration.js';
import { RalphError } from '../../contract/errors.js';
import { DEFAULT_DELIVERY, type DeliveryPolicy } from '../../notify/delivery-policy.js';
import { notification } from '../../notify/notification.js';
import { createNotifier, type Notifier, type NotifyTargets } from '../../notify/notifier.js';
import { notifyUrl } from '../../notify/notify-url.js';
import { ProgramUnavailableError, resolveProgram } from '../../process/program-check.js';

/** The notification options: where a run's notifications go, and how long one attempt may take. */
export interface NotifyOptions {
  notify?: string[];
  notifyCommand?: string[];
  notifyTimeout?: string;
}

/** The option keys of NotifyOptions: never written into a recording (a webhook URL is a secret). */
export const NOTIFY_OPTION_KEYS = ['notify', 'notifyCommand', 'notifyTimeout'] as const;

/** commander's collector of a repeatable option. */
const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** Adds `--notify URL` (repeatable), `--notify-command CMD` (repeatable) and `--notify-timeout` to a command. */
export function addNotifyOptions(command: Command): Command {
  return command
    .option(
      '--notify <url>',
      'POST a small JSON to this http(s) URL when the run ends, is blocked or waits out a usage limit (repeatable; Slack and Discord webhooks get their own shape)',
      collect,
    )
    .option(
      '--notify-command <cmd>',
      "run this program (argv, no shell) with the notification's JSON on stdin, e.g. 'tee -a notes.jsonl' (repeatable)",
      collect,
    )
    .option('--notify-timeout <duration>', 'how long one notification attempt may take (default 5s)');
}

/** The commands that run loops, each of which takes the notification options. */
const NOTIFYING_COMMANDS = ['run', 'resume', 'mcp', 'batch', 'worker', 'submit'] as const;

/**
 * Adds the notification options to every command that runs loops, once they are all registered (kept here, in one
 * place, rather than in each command's chain), and `--allow-notify` to `ralph worker`.
 */
export function addNotifyCommandOptions(program: Command): void {
  for (const command of program.commands) {
    if (!(NOTIFYING_COMMANDS as readonly string[]).includes(command.name())) continue;
    addNotifyOptions(command);
    if (command.name() === 'worker')
      command.option(
        '--allow-notify',
        "also POST a run's notifications to the URLs its submitter gave (ralph submit --notify); else they are not sent",
      );
  }
}

const refuse = (message: string): RalphError => new RalphError({ code: 'refused', message });

/**
 * A notify command's argv, its program looked up now, where it will run (this folder, this PATH): a program that
 * cannot start is refused before the run, not found out when its first notification is due, hours later.
 */
function notifyCommandOf(line: string): string[] {
  const argv = parseVerifyCommand(line, '--notify-command');
  const [program = ''] = argv;
  try {
    resolveProgram(program, process.cwd(), process.env);
  } catch (error) {
    if (!(error instanceof ProgramUnavailableError)) throw error;
    const { problem } = error;
    const why =
      problem.kind === 'not-executable'
        ? `${problem.path} is not an executable file`
        : problem.onPath
          ? 'it was not found on PATH'
          : `${problem.path} does not exist`;
    throw refuse(`--notify-command cannot start ${JSON.stringify(program)}: ${why}`);
  }
  return argv;
}

/** Where the options send notifications; a bad URL or command line is refused (exit 2) before anything starts. */
export function notifyTargetsOf(options: NotifyOptions): NotifyTargets {
  return {
    urls: (options.notify ?? []).map(notifyUrl),
    commands: (options.notifyCommand ?? []).map(notifyCommandOf),
  };
}

/** The delivery policy the options ask for: `--notify-timeout` per attempt; refused without a target to time. */
export function notifyPolicyOf(options: NotifyOptions, targets: NotifyTargets): DeliveryPolicy {
  if (options.notifyTimeout !== undefined && targets.urls.length + targets.commands.length === 0)
    throw refuse(
      '--notify-timeout needs --notify or --notify-command: it is how long one notification may take',
    );
  const timeoutMs =
    options.notifyTimeout === undefined
      ? DEFAULT_DELIVERY.timeoutMs
      : parseDuration(options.notifyTimeout, '--notify-timeout');
  return { ...DEFAULT_DELIVERY, timeoutMs };
}

/**
 * The notifier the options ask for (one with no target when they name none); checked when called, so a command
 * refuses a bad option before it starts anything.
 */
export function notifierFor(options: NotifyOptions): Notifier {
  const targets = notifyTargetsOf(options);
  return createNotifier(targets, { policy: notifyPolicyOf(options, targets) });
}

/** Sends `batch.task-needs-review` for a batch task: `line` is what the batch printed of it. */
export function notifyTaskNeedsReview(
  notifier: Notifier,
  task: { batchId: string; taskId: string; line: string; recording: string },
): void {
  if (!notifier.enabled) return;
  notifier.send(
    notification({
      event: 'batch.task-needs-review',
      runId: `${task.batchId}/${task.taskId}`,
      status: 'needs-review',
      text: `${task.taskId}: ${task.line}`,
      link: task.recording,
      batchId: task.batchId,
      taskId: task.taskId,
    }),
  );
}
