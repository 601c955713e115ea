import { MAX_ANSWER_CHARS } from './answers.js';

/**
 * The texts of the live page's answer box (`ralph run --inspect` with `--ask`): what its server says to a refused
 * answer, and what the page says around the box. The reference has none; they are spelled out here only.
 */

/** Who answered, as the run's events and its recording name the live page. */
export const LIVE_PAGE_ANSWERER = 'live page';

/** The answer box's heading and the label of its text box. */
export const ANSWER_BOX_TITLE = 'A question for you';
export const ANSWER_BOX_LABEL = `Your answer (up to ${MAX_ANSWER_CHARS} characters): the next round reads it as a person's words`;

/** Refusal: an answer that does not come from the run's page (another origin, or without its header). */
export const answerNotFromPage = 'an answer comes from the run page only';

/** Refusal: an answer that is not JSON. */
export const answerNotJson = 'an answer is sent as JSON (content-type: application/json)';

/** Refusal: an answer whose body is larger than any answer. */
export const answerTooLarge = (bytes: number): string => `an answer's request is at most ${bytes} bytes`;

/** Refusal: a body that is not an answer (`{ round, answer: { kind: 'answer', text } | { kind: 'give-up' } }`). */
export const answerMalformed = (problem: string): string => `that is no answer: ${problem}`;

/** Refusal: the round answered is not the one that waits (answered already, or the run went on). */
export const answerNotForRound = (round: number): string =>
  `round ${round} does not wait for an answer (it was answered, or the run has gone on)`;

/** What the page says once its answer went through, and once its give-up did. */
export const ANSWER_SENT = 'Answer sent: the next round starts with it.';
export const GIVE_UP_SENT = 'Given up: the run ends blocked.';
