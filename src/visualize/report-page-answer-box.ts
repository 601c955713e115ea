import {
  ANSWER_BOX_LABEL,
  ANSWER_BOX_TITLE,
  ANSWER_SENT,
  GIVE_UP_SENT,
} from '../contract/answer-page-messages.js';
import { MAX_ANSWER_CHARS } from '../contract/answers.js';
import { escapeHtml } from './report-page-text.js';

/**
 * The live page's answer box (`--ask`): hidden until the run waits for an answer, then the page's script puts the
 * question in it (as text) and posts what a person types to `answerUrl`, with the page's token in its header. It
 * stays outside the regions the event stream swaps, so an update never takes what a person is typing.
 */
export function answerBox(answerUrl: string): string {
  return (
    `<section class="card answer-box" id="answer-box" hidden data-answer="${escapeHtml(answerUrl)}" ` +
    `data-sent="${escapeHtml(ANSWER_SENT)}" data-gave-up="${escapeHtml(GIVE_UP_SENT)}">` +
    `<h2>${escapeHtml(ANSWER_BOX_TITLE)}</h2>` +
    `<p>Round <span id="answer-round"></span> is blocked and asks:</p>` +
    `<div class="text asked" id="answer-question"></div>` +
    `<form id="answer-form"><label for="answer-text">${escapeHtml(ANSWER_BOX_LABEL)}</label>` +
    `<textarea id="answer-text" name="answer" rows="4" maxlength="${MAX_ANSWER_CHARS}" required></textarea>` +
    `<div class="actions"><button type="submit" id="answer-send">Answer</button>` +
    `<button type="button" id="answer-give-up">Give up</button></div>` +
    `<p class="note" id="answer-note" role="status"></p></form></section>`
  );
}
