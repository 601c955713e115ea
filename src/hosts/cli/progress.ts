import { createRequire } from 'node:module';
import {
  questionAnsweredText,
  questionText,
  questionUnansweredText,
  waitingForAnswerText,
} from '../../contract/answer-messages.js';
import { guardRailProgressText } from '../../contract/guard-rail-messages.js';
import type { RalphProgressEvent, ReportStatus } from '../../contract/types.js';
import { costText, type RalphUsage, usageSuffix, usageText } from '../../contract/usage.js';
import { stripControl } from '../../render/terminal-text.js';
import { formatElapsed, oneLine } from './progress-format.js';

/** Where `ralph run` writes its progress, and how. */
export interface ProgressOptions {
  /** A live status line redrawn in place (a terminal), or one plain line per event (a log, a pipe, TERM=dumb). */
  live: boolean;
  /** ANSI colours, as Node decides them (tty.WriteStream#hasColors). */
  color: boolean;
}

/** Receives the run's progress and shows it on a stream. */
export interface ProgressReporter {
  onProgress(event: RalphProgressEvent): void;
  /** A line of the CLI's own (cancelling, forced). */
  note(text: string): void;
  /** The line of what the run used in all, once it is over (given only when an agent said what it used). */
  usageTotal(total: RalphUsage): void;
  /** Clears the live line and stops redrawing it; safe to call twice. */
  stop(): void;
}

/**
 * Node's own colour rule (tty.WriteStream#hasColors). It reads only the environment and the platform, so the
 * prototype's method serves any stream, a pipe too. node:tty is loaded here, when colours may apply, not at start-up:
 * a run whose stderr is a pipe never needs it (≈ 1.5 ms of `ralph run`'s start-up, BENCHMARKS.md).
 */
function nodeSaysColors(env: NodeJS.ProcessEnv): boolean {
  const { WriteStream } = createRequire(import.meta.url)('node:tty') as typeof import('node:tty');
  return WriteStream.prototype.hasColors(env);
}

/**
 * The progress options for a stream. Live redraw needs a terminal that can move the cursor: a TTY whose TERM is not
 * `dumb`. Colours follow Node's own rule, the one `hasColors` applies (FORCE_COLOR first, then NO_COLOR,
 * NODE_DISABLE_COLORS and TERM=dumb, then what the terminal supports), and like Node's console they need a TTY
 * unless FORCE_COLOR asks for them anyway (a CI log that renders them).
 */
export function progressOptionsFor(
  stream: { isTTY?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): ProgressOptions {
  const tty = stream.isTTY === true;
  return {
    live: tty && env.TERM !== 'dumb',
    color: (tty || env.FORCE_COLOR !== undefined) && nodeSaysColors(env),
  };
}

const REDRAW_MS = 250;
/** Back to the start of the line and clear it: how a live line is redrawn in place. */
export const CLEAR_LINE = '\r\x1b[2K';

const STATUS_COLOR: Record<ReportStatus, string> = { continue: '36', complete: '32', blocked: '33' };

/** Creates the reporter `ralph run` feeds its progress to. */
export function createProgressReporter(
  stream: NodeJS.WritableStream,
  options: ProgressOptions,
): ProgressReporter {
  const now = Date.now;
  const paint = (code: string, text: string) => (options.color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const prefix = paint('1', 'ralph:');
  const startedAt = now();
  /** The round that is running; null before the first and between rounds. */
  let current: { round: number; maxRounds: number; since: number } | null = null;
  let rounds = 0;
  /** What the run's rounds said they used so far (undefined while none said). */
  let spent: RalphUsage | undefined;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  /**
   * While the run waits for a person's answer the live line is not drawn: the person may be typing the answer on
   * this terminal, and a redraw would wipe what they typed from the screen.
   */
  let asking = false;

  /** The live line: the round that is running and how long it and the whole run have taken. */
  const status = (): string => {
    const cost = spent?.costUsd === undefined ? '' : ` · ${costText(spent.costUsd)} spent`;
    const total = `${formatElapsed(now() - startedAt)}${cost}`;
    if (current === null)
      return `${prefix} ${rounds === 0 ? 'starting' : 'between rounds'} ${paint('2', total)}`;
    const round = formatElapsed(now() - current.since);
    return `${prefix} round ${current.round}/${current.maxRounds} running ${paint('2', `${round} · ${total} in all`)}`;
  };

  const redraw = () => {
    if (!stopped && !asking) stream.write(`${CLEAR_LINE}${status()}`);
  };

  const print = (text: string) => {
    if (stopped) return;
    if (!options.live) stream.write(`ralph: ${text}\n`);
    else stream.write(`${CLEAR_LINE}${prefix} ${text}\n${asking ? '' : status()}`);
  };

  if (options.live) {
    timer = setInterval(redraw, REDRAW_MS);
    // The status line must never keep the process alive on its own.
    timer.unref();
    redraw();
  }

  return {
    onProgress(event) {
      switch (event.type) {
        case 'round-started':
          current = { round: event.round, maxRounds: event.maxRounds, since: now() };
          print(`round ${event.round}/${event.maxRounds} started`);
          break;
        case 'report-accepted': {
          current = null;
          rounds = event.round;
          const { status: reported, summary } = event.report;
          const label = paint(STATUS_COLOR[reported], reported);
          if (event.totalUsage !== undefined) spent = event.totalUsage;
          const used = usageSuffix(event.usage, event.totalUsage);
          print(
            `round ${event.round}/${event.maxRounds} reported ${label}: ${oneLine(summary)}${used === '' ? '' : paint('2', used)}`,
          );
          break;
        }
        case 'child-started':
          break;
        case 'question-asked':
          // The question is an agent's words, whole (a person must read all of it), without its control characters.
          asking = true;
          print(questionText(event.round, stripControl(event.question)));
          print(waitingForAnswerText(event.runId, event.waitMs));
          break;
        case 'question-answered':
          asking = false;
          print(
            questionAnsweredText(
              event.round,
              event.maxRounds,
              oneLine(event.answer),
              event.by === undefined ? undefined : oneLine(event.by),
            ),
          );
          break;
        case 'question-unanswered':
          asking = false;
          print(stripControl(questionUnansweredText(event)));
          break;
        case 'time-limit-reached':
          print(paint('33', stripControl(guardRailProgressText(event) as string)));
          break;
        default:
          // A guard rail's line can quote what an agent or a command said (a usage limit's message).
          print(
            `round ${event.round}/${event.maxRounds} ${stripControl(String(guardRailProgressText(event)))}`,
          );
      }
    },
    note(text) {
      print(options.color ? paint('33', text) : text);
    },
    usageTotal(total) {
      const text = usageText(total);
      if (text !== '') print(`used in all: ${text}`);
    },
    stop() {
      if (stopped) return;
      if (timer !== null) clearInterval(timer);
      if (options.live) stream.write(CLEAR_LINE);
      stopped = true;
    },
  };
}

/**
 * The reporter's onProgress with `note` said once, just before the first round starts: a run refused before any
 * round (by a check the tool makes when the call comes) never says it.
 */
export function noteBeforeFirstRound(
  reporter: ProgressReporter,
  note: string | undefined,
): ProgressReporter['onProgress'] {
  if (note === undefined) return reporter.onProgress;
  let said = false;
  return (event) => {
    if (!said && event.type === 'round-started') {
      said = true;
      reporter.note(note);
    }
    reporter.onProgress(event);
  };
}
