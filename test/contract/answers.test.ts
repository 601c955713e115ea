import { describe, expect, it } from 'vitest';
import {
  ANSWERED_BLOCKER_LABEL,
  answeredHandoff,
  answerTextProblem,
  MAX_ANSWER_CHARS,
  PERSON_ANSWER_LABEL,
  personAnswerSchema,
} from '../../src/contract/answers.js';
import { shortenToFit } from '../../src/contract/shorten-to-fit.js';
import type { RalphReport } from '../../src/contract/types.js';

// A person's answer as it crosses a boundary (a file, a page, a database row, an MCP call), and the handoff it becomes.

const size = (report: RalphReport): number => JSON.stringify(report).length;
const blocked: RalphReport = {
  status: 'blocked',
  summary: 'Stopped before the migration',
  evidence: ['schema read'],
  nextSteps: [],
  blocker: 'Which database?',
};

describe("an answer's text", () => {
  it('is refused empty or blank, and over 8,192 characters, in words for the person who gave it', () => {
    expect(answerTextProblem('')).toBe('Ralph cannot take an empty answer');
    expect(answerTextProblem(' \n\t')).toBe('Ralph cannot take an empty answer');
    expect(answerTextProblem('a'.repeat(MAX_ANSWER_CHARS + 1))).toBe(
      'Ralph cannot take an answer of 8193 characters: at most 8192',
    );
  });

  it('is taken with words around white space, and at exactly 8,192 characters', () => {
    expect(answerTextProblem(' Postgres ')).toBeUndefined();
    expect(answerTextProblem('a'.repeat(MAX_ANSWER_CHARS))).toBeUndefined();
  });
});

describe('an answer read where it crossed a boundary (personAnswerSchema)', () => {
  it('takes an answer (its text trimmed) or a give-up, each with who gave it', () => {
    expect(personAnswerSchema.parse({ kind: 'answer', text: ' Postgres ', by: 'page' })).toEqual({
      kind: 'answer',
      text: 'Postgres',
      by: 'page',
    });
    expect(personAnswerSchema.parse({ kind: 'give-up' })).toEqual({ kind: 'give-up' });
    expect(personAnswerSchema.parse({ kind: 'give-up', by: 'b'.repeat(200) }).by).toHaveLength(200);
    expect(personAnswerSchema.parse({ kind: 'answer', text: 'a'.repeat(MAX_ANSWER_CHARS) }).kind).toBe(
      'answer',
    );
  });

  it('refuses a blank or oversized text, a long name, another kind and any other field', () => {
    for (const value of [
      { kind: 'answer', text: '   ' },
      { kind: 'answer', text: 'a'.repeat(MAX_ANSWER_CHARS + 1) },
      { kind: 'answer', text: 'x', by: 'b'.repeat(201) },
      { kind: 'give-up', by: 'b'.repeat(201) },
      { kind: 'run', text: 'rm -rf /' },
      { kind: 'answer', text: 'x', command: 'rm -rf /' },
      { kind: 'give-up', text: 'x' },
      { text: 'x' },
    ])
      expect(personAnswerSchema.safeParse(value).success, JSON.stringify(value).slice(0, 80)).toBe(false);
  });
});

describe('the handoff after an answer, when even the labels crowd the cap', () => {
  const bareOf = (report: RalphReport): RalphReport => ({
    ...report,
    status: 'continue',
    blocker: null,
    evidence: [],
    nextSteps: [`${ANSWERED_BLOCKER_LABEL} ${report.blocker}`, `${PERSON_ANSWER_LABEL} …`],
  });

  it('drops the evidence and keeps the labels and the summary when that fits exactly', () => {
    const bare = bareOf(blocked);
    expect(answeredHandoff(blocked, 'x'.repeat(500), size(bare))).toEqual(bare);
    expect(answeredHandoff(blocked, 'x'.repeat(500), size(bare) + 1)).toEqual(bare);
  });

  it('then cuts the summary, whole characters from its first non-blank one', () => {
    const report = { ...blocked, summary: '  😀 and more words here' };
    const bare = bareOf(report);
    // One JSON character short of the bare handoff: the summary loses its end.
    const cut = answeredHandoff(report, 'x'.repeat(500), size(bare) - 20);
    expect(cut.summary.startsWith('😀')).toBe(true);
    expect(size(cut)).toBeLessThanOrEqual(size(bare) - 20);
    // So short a cap that one character is all the summary keeps: the emoji whole, never half of it.
    const tiny = answeredHandoff(report, 'x', 10);
    expect(tiny.summary).toBe('😀');
    // A character of the BMP's last code point is one unit: only it is kept.
    expect(answeredHandoff({ ...report, summary: '\uffffabc' }, 'x', 10).summary).toBe('\uffff');
  });
});

describe('shortenToFit', () => {
  it('keeps the end of a text whole: never the second half of a character at the cut', () => {
    // 'ab😀cd' is 6 units; a cap that keeps the last 3 units would start inside the emoji.
    expect(shortenToFit('ab😀cd', (kept) => kept.length - 3, 'end')).toBe('cd');
    expect(shortenToFit('ab😀cd', (kept) => kept.length - 4, 'end')).toBe('😀cd');
    // A whole character inside what is kept stays: only a half at the cut goes.
    expect(shortenToFit('ab😀cd', (kept) => kept.length - 5, 'end')).toBe('b😀cd');
  });

  it('keeps the start of a text whole, and gives up to an empty text when nothing fits', () => {
    expect(shortenToFit('ab😀cd', (kept) => kept.length - 3, 'start')).toBe('ab');
    expect(shortenToFit('abc', () => 1, 'start')).toBe('');
  });
});
