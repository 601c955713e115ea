import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type AnswerSource, buildRunModel, replayRecording } from '../../src/index.js';
import { renderRunPage, runTitle } from '../../src/visualize/report-page.js';
import { completeReport } from '../support/round-reports.js';
import { ASKED, neverAnswers, recordAskedRun } from './asked-recording.js';

// A run that asked a person (`--ask`), as `ralph replay`, the run model and the report page see it from its recording:
// the question (the blocker), the answer and who gave it, or why none came. Every recording is the engine's own.

const MACHINE_SVG = readFileSync(new URL('../fixtures/machine/ralph-like.svg', import.meta.url), 'utf8');
const ANSWER = 'Postgres 16 </div><img src=x onerror=alert(1)>';

const answering =
  (text: string, by = 'terminal'): AnswerSource =>
  async () => ({ kind: 'answer', text, by });

describe('the run model of a run that asked', () => {
  it('answered: the blocked round holds its question, the answer and who gave it; the next round goes on', async () => {
    const run = await recordAskedRun(answering(ANSWER));
    expect(run.result.ok && run.result.envelope.result.status).toBe('complete');
    const model = buildRunModel(run.text);
    expect(model.rounds.map((round) => round.outcome)).toEqual(['continue', 'blocked', 'complete']);
    const [, blocked, third] = model.rounds;
    expect(blocked?.report?.blocker).toBe(ASKED);
    expect(blocked?.question).toEqual({
      question: ASKED,
      askedAt: expect.any(Number),
      waitMs: 60_000,
      endedAt: expect.any(Number),
      outcome: 'answered',
      answer: ANSWER,
      by: 'terminal',
    });
    expect(third?.question).toBeUndefined();
    expect(model.path.map((step) => step.state)).toContain('running.awaitingAnswer');
  });

  it('given up, timed out, cancelled: why no answer came', async () => {
    const givenUp = buildRunModel((await recordAskedRun(async () => ({ kind: 'give-up', by: 'mcp' }))).text);
    expect(givenUp.rounds[1]?.question).toMatchObject({ outcome: 'given-up', by: 'mcp', answer: null });
    expect(givenUp.ending?.finalState).toBe('blocked');

    const timedOut = buildRunModel((await recordAskedRun(neverAnswers, { waitMs: 20 })).text);
    expect(timedOut.rounds[1]?.question).toMatchObject({ outcome: 'timed-out', waitMs: 20, by: null });
    expect(timedOut.rounds[1]?.question?.endedAt).not.toBeNull();

    const cancelled = buildRunModel((await recordAskedRun(neverAnswers, { cancel: true })).text);
    expect(cancelled.rounds[1]?.question).toMatchObject({ outcome: 'cancelled', answer: null });
    expect(cancelled.ending?.result.ok).toBe(false);
  });

  it('while it waits (a recording cut there): the question waits, and the page says so', async () => {
    const run = await recordAskedRun(neverAnswers, { cancel: true });
    const cancelAt = run.lines.findIndex((line) => line.includes('"type":"CANCEL"'));
    const model = buildRunModel(run.lines.slice(0, cancelAt).join(''));
    expect(model.ending).toBeNull();
    expect(model.rounds[1]?.question).toMatchObject({ outcome: 'waiting', endedAt: null });
    expect(runTitle(model)).toBe(`ralph run ${model.runId}: waiting for an answer`);
    const page = renderRunPage(model, { machineSvg: MACHINE_SVG });
    expect(page).toContain('<h2>Waiting for an answer</h2>');
    expect(page).toContain('waits for a person to answer its blocker (up to 1m)');
    // A page that is no live page with an answer box has none.
    expect(page).not.toContain('id="answer-box"');
  });
});

describe('the report page of a run that asked', () => {
  it('shows the question and the answer, escaped, and who answered', async () => {
    const model = buildRunModel((await recordAskedRun(answering(ANSWER, 'live <page>'))).text);
    const page = renderRunPage(model, { machineSvg: MACHINE_SVG });
    const block = page.slice(
      page.indexOf('id="question-2"'),
      page.indexOf('</section>', page.indexOf('id="question-2"')),
    );
    expect(block).toContain('<span class="badge question-answered">answered</span>');
    expect(block).toContain('Which database? &lt;script&gt;alert(&quot;db&quot;)&lt;/script&gt; &amp; co');
    expect(block).toContain('Postgres 16 &lt;/div&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(block).toContain('by <span class="by">live &lt;page&gt;</span>');
    expect(page).not.toContain('<img src=x');
    expect(page).not.toContain('<script>alert');
  });

  it('shows why a question went unanswered, beside the result line that says it', async () => {
    const model = buildRunModel((await recordAskedRun(neverAnswers, { waitMs: 20 })).text);
    const page = renderRunPage(model, { machineSvg: MACHINE_SVG });
    expect(page).toContain('<span class="badge question-timed-out">timed out</span>');
    expect(page).toContain("Round 2's question got no answer in time; the run ended blocked");
    expect(page).toContain('Nobody answered round 2&#39;s blocker within');
  });

  it('a run that never asked has no question anywhere on its page', async () => {
    const run = await recordAskedRun(undefined, {
      steps: [{ report: completeReport() }],
    });
    const page = renderRunPage(buildRunModel(run.text), { machineSvg: MACHINE_SVG });
    const body = page.slice(page.indexOf('<main>'), page.indexOf('</main>'));
    expect(body).toContain('id="round-1"');
    expect(body).not.toMatch(/question-|answer-box|Waiting for an answer/);
  });
});

describe('ralph replay of a run that asked', () => {
  it('replays the wait and the answer through the machine, emitting what the run emitted', async () => {
    const run = await recordAskedRun(answering(ANSWER));
    const replay = replayRecording(run.text);
    const emitted = replay.steps.flatMap((step) => step.emitted);
    const asked = (type: string) => emitted.filter((event) => event.type.startsWith(type));
    expect(asked('question')).toEqual(run.progress.filter((event) => event.type.startsWith('question')));
    expect(asked('question-answered')).toEqual([
      expect.objectContaining({ round: 2, answer: ANSWER, by: 'terminal' }),
    ]);
    expect(replay.outcome.ok && replay.outcome.envelope.result.status).toBe('complete');
  });

  it('replays a wait that timed out, with the envelope saying why', async () => {
    const run = await recordAskedRun(neverAnswers, { waitMs: 20 });
    const replay = replayRecording(run.text);
    expect(replay.outcome.ok && replay.outcome.envelope.result.question).toEqual({
      round: 2,
      reason: 'timed-out',
      waitMs: 20,
    });
  });
});
