import { z } from 'zod';
import { shortenToFit, wholeStart } from './shorten-to-fit.js';
import type { RalphReport } from './types.js';

export type { RalphQuestionEnding, UnansweredReason } from './types.js';

/** How long `--ask` waits for a person's answer when no duration is given: one day. */
export const DEFAULT_ANSWER_WAIT_MS = 86_400_000;

/** The longest answer a person may give (characters); a longer one is refused where it is given. */
export const MAX_ANSWER_CHARS = 8_192;

/** The label the next round reads before the person's answer, so no agent mistakes it for an agent's words. */
export const PERSON_ANSWER_LABEL = "A person's answer to the blocker (a person wrote this, not an agent):";

/** The label of the blocker the person answered, in the next round's handoff. */
export const ANSWERED_BLOCKER_LABEL = 'The previous round was blocked:';

/** What a person (or a host speaking for one) gives a run that waits: an answer, or the word to stop waiting. */
export type PersonAnswer =
  | {
      kind: 'answer';
      text: string /** Who answered, as the host knows them (e.g. `terminal`, `mcp`). */;
      by?: string;
    }
  | { kind: 'give-up'; by?: string };

/** What an answer source may resolve with: a person's answer, or that its own (durable) wait ran out. */
export type AnswerOutcome = PersonAnswer | { kind: 'timed-out' };

/** The question a blocked round put to a person: what the answer sources are given. */
export interface RalphQuestion {
  runId: string;
  /** The round that reported blocked. */
  round: number;
  maxRounds: number;
  /** The blocker, word for word: the question. */
  question: string;
  /** The blocked round's whole report. */
  report: RalphReport;
  /** How long the run waits for an answer (ms). */
  waitMs: number;
}

/**
 * Where a run's answers come from (a terminal, a file `ralph answer` writes, a page, an MCP tool, a durable
 * message): resolves with the first answer given to this question; stops waiting when `signal` aborts.
 */
export type AnswerSource = (question: RalphQuestion, signal: AbortSignal) => Promise<AnswerOutcome>;

/** An answer as it crosses a boundary (a file, a database row, an HTTP body, an MCP call): checked where it is used. */
export const personAnswerSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('answer'),
    text: z.string().trim().min(1).max(MAX_ANSWER_CHARS),
    by: z.string().max(200).optional(),
  }),
  z.strictObject({ kind: z.literal('give-up'), by: z.string().max(200).optional() }),
]);

/** What is wrong with an answer's text, worded for the person who gave it; undefined when it is fine. */
export function answerTextProblem(text: string): string | undefined {
  if (text.trim() === '') return 'Ralph cannot take an empty answer';
  if (text.length > MAX_ANSWER_CHARS)
    return `Ralph cannot take an answer of ${text.length} characters: at most ${MAX_ANSWER_CHARS}`;
  return undefined;
}

const sizeOf = (report: RalphReport): number => JSON.stringify(report).length;

/** The handoff with the blocker and as much of the answer as `answer` gives. */
function handoffWith(report: RalphReport, blocker: string, answer: string): RalphReport {
  return {
    ...report,
    status: 'continue',
    blocker: null,
    nextSteps: [`${ANSWERED_BLOCKER_LABEL} ${blocker}`, `${PERSON_ANSWER_LABEL} ${answer}`],
  };
}

/**
 * The handoff after a person answered a blocked round: its report as a `continue` report (so it passes the report
 * rules and reads as work remaining) whose two next steps are the blocker and the answer, labelled as a person's.
 * Bounded by the handoff cap: the answer is cut from its end, then the summary and evidence, so the result never
 * exceeds `maxHandoffChars` unless the two labels alone do.
 */
export function answeredHandoff(report: RalphReport, answer: string, maxHandoffChars: number): RalphReport {
  const blocker = report.blocker ?? '';
  const full = handoffWith(report, blocker, answer);
  if (sizeOf(full) <= maxHandoffChars) return full;
  const withCut = (kept: string) => handoffWith(report, blocker, `${kept}…`);
  const kept = shortenToFit(answer, (part) => sizeOf(withCut(part)) - maxHandoffChars, 'start');
  const over = sizeOf(withCut(kept)) - maxHandoffChars;
  if (over <= 0) return withCut(kept);
  const bare = handoffWith({ ...report, evidence: [] }, wholeStart(blocker, 200), '…');
  const room = maxHandoffChars - sizeOf(bare);
  if (room >= 0) return bare;
  // Cut from the summary's first non-blank character, whole characters, keeping one: a summary the rules accept.
  const summary = report.summary.trimStart();
  const first = (summary.codePointAt(0) ?? 0) > 0xffff ? 2 : 1;
  return { ...bare, summary: wholeStart(summary, Math.max(first, summary.length + room - 1)) };
}
