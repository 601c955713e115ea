import type { RalphEnvelope, RalphReport } from '../contract/types.js';
import { costText, type RalphUsage, usageText } from '../contract/usage.js';
import type { RunEnding, RunModel, RunModelRound } from '../inspect/run-model.js';
import { resultLabel, resultNote } from '../render/result-text.js';
import { batchBadge, batchCard, type RunPageBatch } from './report-page-batch.js';
import { evaluationBlock } from './report-page-evaluation.js';
import { pathList } from './report-page-path.js';
import { questionBlock } from './report-page-question.js';
import { escapeHtml, formatDuration, formatOffset, wallClock } from './report-page-text.js';
import type { RunTone } from './tone.js';

/** The result's second line, when it has one (what a cost figure leaves out, the round a time limit stopped). */
function noteOf(envelope: RalphEnvelope): string {
  const note = resultNote(envelope);
  return note === undefined ? '' : `<p class="note">${escapeHtml(note)}</p>`;
}

/** The parts of the run page that change while a run goes; the live page swaps each one as a whole. */
export interface RunPageRegions {
  /** The title bar, the run's facts and its ending. */
  head: string;
  /** The timeline of rounds. */
  rounds: string;
  /** The states the run went through, listed beside the statechart. */
  path: string;
}

export type { RunTone } from './tone.js';

/** Up to this many rounds every round opens expanded; above it only the last one does. */
const OPEN_ALL_UP_TO = 3;

/** The run's status in a word or two, and its tone. */
export function runStatus(model: RunModel | null): { label: string; tone: RunTone } {
  if (model === null) return { label: 'Waiting', tone: 'live' };
  const ending = model.ending;
  if (ending === null)
    return {
      label: waitingQuestion(model) === undefined ? 'Running' : 'Waiting for an answer',
      tone: 'live',
    };
  if (ending.result.ok) {
    const status = ending.result.envelope.result.status;
    if (status === 'complete') return { label: 'Complete', tone: 'good' };
    return { label: status === 'blocked' ? 'Blocked' : 'Budget limited', tone: 'warn' };
  }
  switch (ending.result.failure.code) {
    case 'refused':
      return { label: 'Refused', tone: 'bad' };
    case 'cancelled':
      return { label: 'Cancelled', tone: 'muted' };
    case 'child-failed':
      return { label: 'Child failed', tone: 'bad' };
    case 'workflow-failed':
      return { label: 'Workflow failed', tone: 'bad' };
  }
}

/** The round whose question waits for a person's answer now (`--ask`), if any. */
export function waitingQuestion(model: RunModel | null): RunModelRound | undefined {
  const round = model?.rounds.at(-1);
  return model?.ending === null && round?.question?.outcome === 'waiting' ? round : undefined;
}

/** The page's title: the run and its status. */
export function runTitle(model: RunModel | null): string {
  const { label } = runStatus(model);
  return model === null ? 'ralph run: waiting' : `ralph run ${model.runId}: ${label.toLowerCase()}`;
}

/**
 * Every changing part of the page for this model (null: the live page before the run's first event); with `batch`,
 * the head also says how the run's task ended for its batch.
 */
export function renderRunRegions(model: RunModel | null, batch?: RunPageBatch): RunPageRegions {
  if (model === null) {
    return {
      head: `${titleBar(null)}<section class="card ending tone-live"><p>Waiting for the run to start…</p></section>`,
      rounds: '',
      path: pathList(null),
    };
  }
  return {
    head:
      titleBar(model, batch) + (batch === undefined ? '' : batchCard(batch)) + facts(model) + ending(model),
    rounds: timeline(model),
    path: pathList(model),
  };
}

function titleBar(model: RunModel | null, batch?: RunPageBatch): string {
  const { label, tone } = runStatus(model);
  const objective = model?.objective ?? '';
  const firstLine = objective.split('\n', 1)[0] ?? '';
  return (
    `<header class="title"><h1>ralph run</h1><span class="badge tone-${tone}" id="run-status">${escapeHtml(label)}</span>` +
    (batch === undefined ? '' : batchBadge(batch)) +
    `<span class="objective-line" title="${escapeHtml(objective)}">${escapeHtml(firstLine)}</span></header>`
  );
}

function fact(name: string, value: string, wide = false): string {
  return `<div class="fact${wide ? ' wide' : ''}"><dt>${name}</dt><dd>${value}</dd></div>`;
}

function facts(model: RunModel): string {
  const last = model.path.at(-1)?.state;
  const duration = model.ending === null ? 'running' : formatDuration(model.ending.at);
  const objective =
    model.objective === null
      ? '<span class="none">none sent</span>'
      : model.objective.trim() === ''
        ? '<span class="none">empty</span>'
        : `<div class="text objective">${escapeHtml(model.objective)}</div>`;
  const { recording } = model;
  return (
    `<section class="card"><h2>Run</h2><dl class="facts">` +
    fact('Objective', objective, true) +
    fact('Run id', `<code id="run-id">${escapeHtml(model.runId)}</code>`) +
    fact(
      'Rounds',
      model.maxRounds === null
        ? `${model.rounds.length} <span class="none">(no cap resolved)</span>`
        : `${model.rounds.length} of ${escapeHtml(model.maxRounds)}`,
    ) +
    fact('Agents started', escapeHtml(model.agentsStarted)) +
    (model.usage === null ? '' : fact('Used in all', escapeHtml(usageText(model.usage)))) +
    fact('Started', `<time>${escapeHtml(model.startedAt)}</time>`) +
    fact('Duration', duration) +
    fact(
      model.ending === null ? 'Now in' : 'Final state',
      `<code>${escapeHtml(model.ending?.finalState ?? last ?? 'none')}</code>`,
    ) +
    fact('ralph-machine', escapeHtml(recording.packageVersion)) +
    fact(
      'Recording',
      `format ${escapeHtml(recording.formatVersion)}, machine <code>${escapeHtml(recording.machineHash)}</code>`,
    ) +
    `</dl></section>`
  );
}

function list(items: string[]): string {
  return `<ul>${items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`;
}

/** A report's fields, as the timeline and the ending show them. */
function reportBody(report: RalphReport): string {
  let html = `<div class="text summary">${escapeHtml(report.summary)}</div>`;
  html += `<h4>Evidence</h4>${report.evidence.length === 0 ? '<p class="none">none</p>' : list(report.evidence)}`;
  if (report.blocker !== null)
    html += `<h4>Blocker</h4><div class="text blocker">${escapeHtml(report.blocker)}</div>`;
  if (report.nextSteps.length > 0 || report.blocker === null) {
    html += `<h4>Next steps</h4>${report.nextSteps.length === 0 ? '<p class="none">none</p>' : list(report.nextSteps)}`;
  }
  return html;
}

function ending(model: RunModel): string {
  const end: RunEnding | null = model.ending;
  const { tone } = runStatus(model);
  const asking = waitingQuestion(model);
  if (end === null && asking !== undefined) {
    return (
      `<section class="card ending tone-live" id="ending"><h2>Waiting for an answer</h2>` +
      `<p>Round ${escapeHtml(asking.round)} of ${escapeHtml(model.maxRounds ?? '?')} is blocked and asks a person:</p>` +
      `<div class="text asked">${escapeHtml(asking.question?.question ?? '')}</div>` +
      `<p><a href="#round-${escapeHtml(asking.round)}">The round's report and question</a></p></section>`
    );
  }
  if (end === null) {
    const current = model.path.at(-1)?.state ?? 'validating';
    const round = model.rounds.at(-1);
    const where =
      round === undefined
        ? 'starting'
        : `round ${escapeHtml(round.round)} of ${escapeHtml(model.maxRounds ?? '?')}, started ${formatOffset(round.startedAt)}`;
    return (
      `<section class="card ending tone-live" id="ending"><h2>Running</h2>` +
      `<p>In <code>${escapeHtml(current)}</code>, ${where}. This page follows the run as it goes.</p></section>`
    );
  }
  if (end.result.ok) {
    const { envelope } = end.result;
    return (
      `<section class="card ending tone-${tone}" id="ending"><h2>Result</h2>` +
      `<p class="label">${escapeHtml(resultLabel(envelope))}</p>` +
      noteOf(envelope) +
      `<h3>Final report</h3>${reportBody(envelope.result.report)}</section>`
    );
  }
  const { failure } = end.result;
  let html =
    `<section class="card ending tone-${tone}" id="ending"><h2>Error</h2>` +
    `<div class="text message">${escapeHtml(failure.message)}</div><dl class="facts">` +
    fact('Code', `<code>${escapeHtml(failure.code)}</code>`) +
    (failure.round === undefined ? '' : fact('Round', escapeHtml(failure.round))) +
    `</dl>`;
  if (failure.detail !== undefined) {
    html += `<h3>Detail</h3><pre class="text detail">${escapeHtml(failure.detail)}</pre>`;
  }
  if (failure.lastHandoff !== undefined) {
    html +=
      failure.lastHandoff === null
        ? '<h3>Last handoff</h3><p class="none">No previous handoff was available.</p>'
        : `<h3>Last handoff</h3><pre class="json">${escapeHtml(JSON.stringify(failure.lastHandoff, null, 2))}</pre>`;
  }
  return `${html}</section>`;
}

const OUTCOME_LABELS: Record<RunModelRound['outcome'], string> = {
  running: 'running',
  continue: 'continue',
  complete: 'complete',
  rejected: 'rejected',
  blocked: 'blocked',
  'budget-limited': 'budget limited',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** A round's usage cell: its cost when its agent said it, else its tokens, else a dash. */
function usageCell(usage: RalphUsage | null): string {
  if (usage === null) return '<span class="used none">–</span>';
  const tokens = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  const shown =
    usage.costUsd !== undefined
      ? costText(usage.costUsd)
      : tokens > 0
        ? `${tokens.toLocaleString('en-US')} tok`
        : '–';
  return `<span class="used" title="${escapeHtml(usageText(usage))}">${shown}</span>`;
}

function roundEntry(model: RunModel, round: RunModelRound, open: boolean, withUsage: boolean): string {
  const clock = wallClock(model.startedAt, round.startedAt);
  const duration = round.endedAt === null ? 'running' : formatDuration(round.endedAt - round.startedAt);
  const summary = round.report?.summary ?? roundWithoutReport(round);
  let body =
    round.report === null ? `<p class="none">${roundWithoutReport(round)}</p>` : reportBody(round.report);
  body += `<p class="child">Child <code>${round.childId === null ? 'not started' : escapeHtml(round.childId)}</code>`;
  if (clock !== undefined) body += `, started <time>${clock}</time>`;
  body += '</p>';
  if (round.evaluation !== undefined) body += evaluationBlock(round.round, round.evaluation);
  if (round.question !== undefined) body += questionBlock(round.round, round.question);
  return (
    `<details class="round outcome-${round.outcome}" id="round-${round.round}"${open ? ' open' : ''}>` +
    `<summary><span class="n">${round.round}</span>` +
    `<span class="at"${clock === undefined ? '' : ` title="${clock}"`}>${formatOffset(round.startedAt)}</span>` +
    `<span class="dur">${duration}</span>` +
    (withUsage ? usageCell(round.usage) : '') +
    `<span class="badge outcome-${round.outcome}">${OUTCOME_LABELS[round.outcome]}</span>` +
    `<span class="sum">${escapeHtml(summary)}</span></summary>` +
    `<div class="body">${body}</div></details>`
  );
}

function roundWithoutReport(round: RunModelRound): string {
  switch (round.outcome) {
    case 'running':
      return 'Running: no report yet.';
    case 'cancelled':
      return 'Cancelled before it reported.';
    default:
      return 'No accepted report: the round failed (see the error).';
  }
}

function strip(rounds: RunModelRound[]): string {
  const cells = rounds
    .map((round) => {
      const tip = `Round ${round.round}: ${OUTCOME_LABELS[round.outcome]}${round.report === null ? '' : ` — ${round.report.summary}`}`;
      return `<a class="cell outcome-${round.outcome}" href="#round-${round.round}" title="${escapeHtml(tip)}"></a>`;
    })
    .join('');
  return `<nav class="strip" aria-label="Rounds at a glance">${cells}</nav>`;
}

function timeline(model: RunModel): string {
  const { rounds } = model;
  if (rounds.length === 0) {
    return '<section class="card" id="timeline"><h2>Rounds</h2><p class="none">No round started.</p></section>';
  }
  const openAll = rounds.length <= OPEN_ALL_UP_TO;
  // The usage column is there only when some agent said what it used, so a report of such a run keeps its look.
  const withUsage = model.usage !== null || rounds.some((round) => round.usage !== null);
  const entries = rounds.map((round, index) =>
    roundEntry(model, round, openAll || index === rounds.length - 1, withUsage),
  );
  return (
    `<section class="card${withUsage ? ' with-usage' : ''}" id="timeline"><div class="timeline-head"><h2>Rounds <span class="count">${rounds.length}</span></h2>` +
    `<span class="tools"><button type="button" data-details="open">Expand all</button>` +
    `<button type="button" data-details="close">Collapse all</button></span></div>` +
    (rounds.length > 1 ? strip(rounds) : '') +
    `<div class="columns" aria-hidden="true"><span>#</span><span>start</span><span>duration</span>${withUsage ? '<span>used</span>' : ''}<span>outcome</span><span>summary</span></div>` +
    `<div class="rounds">${entries.join('')}</div></section>`
  );
}
