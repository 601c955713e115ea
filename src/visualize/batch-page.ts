import type { RalphEvaluation } from '../contract/types.js';
import type { BatchRecording } from '../inspect/batch-recording.js';
import { firstLine, type NextStep, nextStepHtml, type TaskOutcome } from './batch-outcome.js';
import { RUN_PAGE_STYLE } from './report-page-style.js';
import { escapeHtml, formatDuration } from './report-page-text.js';

/** One task's row: how it ended, where its work is, what its run took, what to do next, and its run's own page. */
export interface BatchPageRow {
  id: string;
  objective: string;
  status: string;
  /** The outcome in one line (`Landed on …`, `Needs review: …`) and its tone. */
  outcome: TaskOutcome;
  rounds: number | null;
  costUsd: number | null;
  /** The merge outcome or why the task ended as it did (a failing verify command's output below its first line). */
  note: string | null;
  conflicts: string[];
  /** The task's branch, `ralph/<batch-id>/<task-id>`. */
  branch: string;
  /** The task's worktree, and whether it is still there (a landed or cancelled task's is removed). */
  worktree: string;
  worktreeKept: boolean;
  /** The commit the target was moved to, for a task that landed (null when not known). */
  commit: string | null;
  nextStep: NextStep | null;
  /** The run's report page, relative to the batch page; null when the task's run was never recorded. */
  runPage: string | null;
  /** The last verdict of the task's evaluator (`ralph batch --evaluator`); absent when none gave one. */
  evaluation?: RalphEvaluation;
}

/** What the batch page says of the batch besides its recording: where it is, and what to do next. */
export interface BatchPageFacts {
  /** The batch's recording, as `ralph report` was given it. */
  recording: string;
  /** The tag on the commit the target started from (`ralph batch --rollback` restores it). */
  startTag: string;
  /** True when the target is the batch's own session branch (`ralph/batch-<id>`), not an `--into` branch. */
  ownTarget: boolean;
  /** From start to settling, when the recording says. */
  durationMs: number | null;
  nextSteps: NextStep[];
}

/** The statuses the totals count, in their order, with their names. */
const TOTALS = [
  ['landed', 'landed', 'good'],
  ['needs-review', 'need review', 'warn'],
  ['failed', 'failed', 'bad'],
  ['skipped', 'skipped', 'muted'],
  ['cancelled', 'cancelled', 'muted'],
] as const;

const BATCH_STYLE = `
table { border-collapse: collapse; width: 100%; background: var(--card); }
td, th { border: 1px solid var(--line); padding: 6px 8px; text-align: left; vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; background: var(--bg); }
td pre { margin-top: 6px; max-height: 240px; }
.outcome { font-weight: 600; }
.evaluation { margin-top: 4px; font-size: 13px; }
.totals { display: flex; flex-wrap: wrap; gap: 10px; margin: 0; padding: 0; list-style: none; }
.totals li { border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px; min-width: 110px; margin: 0; }
.totals .count { display: block; font-size: 20px; font-weight: 600; }
.totals .zero { color: var(--muted); }
.steps li { margin: 6px 0; }
.steps code, .step code { display: inline-block; margin-top: 2px; padding: 2px 6px; background: var(--bg);
  border: 1px solid var(--line); border-radius: 4px; user-select: all; }
.where code, .step code { overflow-wrap: anywhere; } .where .gone { color: var(--muted); }
th.objective-head { width: 16em; } th.outcome-head { min-width: 13em; } th.step-head { min-width: 17em; } th.where-head { min-width: 16em; }
.num { text-align: right; white-space: nowrap; }
`;

/** No network, no script: the page is static text and links to its runs' pages. */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const cell = (value: string | number | null, className?: string): string =>
  `<td${className === undefined ? '' : ` class="${className}"`}>${value === null ? '—' : escapeHtml(value)}</td>`;

const code = (text: string): string => `<code>${escapeHtml(text)}</code>`;

const costText = (usd: number | null): string | null => (usd === null ? null : `$${usd.toFixed(2)}`);

/** The evaluator's last verdict in one line: an accept names its round, a reject its findings too. */
export function evaluationLine(evaluation: RalphEvaluation): string {
  const judged = `the completion reported in round ${evaluation.round}`;
  return evaluation.verdict === 'accept'
    ? `Evaluator ${evaluation.evaluator} accepted ${judged}`
    : `Evaluator ${evaluation.evaluator} rejected ${judged}: ${evaluation.findings.join('; ')}`;
}

/**
 * The outcome: its line in its tone, the evaluator's verdict when the task had one, and the rest of the note (a
 * failing verify command's output) quoted below.
 */
function outcomeCell(row: BatchPageRow): string {
  const rest = row.note === null ? '' : row.note.split('\n').slice(1).join('\n').trim();
  const quoted = rest === '' ? '' : `<pre>${escapeHtml(rest)}</pre>`;
  const verdict =
    row.evaluation === undefined
      ? ''
      : `<div class="evaluation verdict-${row.evaluation.verdict}">${escapeHtml(evaluationLine(row.evaluation))}</div>`;
  return `<td><span class="outcome tone-${row.outcome.tone}">${escapeHtml(row.outcome.label)}</span>${verdict}${quoted}</td>`;
}

/** Where the task's work is: its branch, its worktree (or that it was removed), the commit it landed as. */
function whereCell(row: BatchPageRow): string {
  const tree = row.worktreeKept
    ? `worktree ${code(row.worktree)}`
    : `<span class="gone">worktree ${code(row.worktree)} (removed)</span>`;
  const landed = row.commit === null ? '' : `<div>landed as ${code(row.commit)}</div>`;
  return `<td class="where"><div>branch ${code(row.branch)}</div><div>${tree}</div>${landed}</td>`;
}

function rowHtml(row: BatchPageRow): string {
  const id =
    row.runPage === null
      ? escapeHtml(row.id)
      : `<a href="${escapeHtml(row.runPage)}">${escapeHtml(row.id)}</a>`;
  return (
    `<tr class="status-${escapeHtml(row.status)}"><td>${id}</td>` +
    `${cell(firstLine(row.objective, 120))}${outcomeCell(row)}` +
    `${cell(row.conflicts.length === 0 ? null : row.conflicts.join(', '))}${whereCell(row)}` +
    `${cell(row.rounds, 'num')}${cell(costText(row.costUsd), 'num')}` +
    `<td class="step">${row.nextStep === null ? '—' : nextStepHtml(row.nextStep)}</td></tr>`
  );
}

/** The totals: a count per outcome, the rounds and cost of every run, and how long the batch took. */
function totals(rows: readonly BatchPageRow[], facts: BatchPageFacts): string {
  const counted = new Set<string>(TOTALS.map(([status]) => status));
  const unsettled = rows.filter((row) => !counted.has(row.status)).length;
  const box = (count: string | number, name: string, className = '') =>
    `<li class="${className}"><span class="count">${escapeHtml(count)}</span>${escapeHtml(name)}</li>`;
  const costs = rows.map((row) => row.costUsd).filter((usd): usd is number => usd !== null);
  return [
    ...TOTALS.map(([status, name, tone]) => {
      const count = rows.filter((row) => row.status === status).length;
      return box(count, name, count === 0 ? 'zero' : `tone-${tone}`);
    }),
    ...(unsettled === 0 ? [] : [box(unsettled, 'not settled', 'tone-live')]),
    box(
      rows.reduce((sum, row) => sum + (row.rounds ?? 0), 0),
      'rounds',
    ),
    box(costs.length === 0 ? '—' : `$${costs.reduce((a, b) => a + b, 0).toFixed(2)}`, 'cost'),
    box(facts.durationMs === null ? '—' : formatDuration(facts.durationMs), 'duration'),
  ].join('');
}

function fact(name: string, value: string): string {
  return `<div class="fact"><dt>${escapeHtml(name)}</dt><dd>${value}</dd></div>`;
}

/**
 * One self-contained HTML page of a batch (no script, nothing fetched): where it landed and what it started from, its
 * totals, what to do next, and a row per task saying how it ended, where its branch, worktree and landing commit are,
 * and what to do about it, each linking to its run's own page. Every text is escaped.
 */
export function renderBatchPage(
  recording: BatchRecording,
  rows: readonly BatchPageRow[],
  facts: BatchPageFacts,
): string {
  const { header, settled } = recording;
  const ending =
    settled === null
      ? { label: 'Did not settle', tone: 'live', text: 'the recording ends before the batch did' }
      : settled.cancelReason === null
        ? { label: 'Settled', tone: 'good', text: 'settled' }
        : {
            label: `Cancelled (${settled.cancelReason})`,
            tone: 'muted',
            text: `cancelled (${settled.cancelReason})`,
          };
  const target = `${code(header.target)} ${
    facts.ownTarget
      ? "(the batch's own session branch, made from HEAD)"
      : '(an existing branch, given with <code>--into</code>)'
  }`;
  const steps =
    facts.nextSteps.length === 0
      ? '<p class="none">nothing to do</p>'
      : `<ul class="steps">${facts.nextSteps.map((step) => `<li>${nextStepHtml(step)}</li>`).join('')}</ul>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<meta name="generator" content="ralph-machine">
<link rel="icon" href="data:,">
<title>ralph batch ${escapeHtml(header.batchId)}: ${escapeHtml(ending.label.toLowerCase())}</title>
<style>${RUN_PAGE_STYLE}${BATCH_STYLE}</style>
</head><body><main>
<header class="title"><h1>ralph batch</h1><span class="badge tone-${ending.tone}" id="batch-status">${escapeHtml(ending.label)}</span><span class="objective-line">${escapeHtml(header.batchId)}</span></header>
<section class="card" id="batch"><h2>Batch</h2><dl class="facts">
${fact('Target', target)}
${fact('Started from', `${code(header.start.slice(0, 12))}, tagged ${code(facts.startTag)}`)}
${fact('Started', `<time>${escapeHtml(header.startedAt)}</time>`)}
${fact('Ended', settled?.endedAt === undefined ? escapeHtml(ending.text) : `<time>${escapeHtml(settled.endedAt)}</time>, ${escapeHtml(ending.text)}`)}
${fact('Tasks', `${rows.length}, at most ${escapeHtml(header.parallel)} at once`)}
${fact('Recording', code(facts.recording))}
</dl></section>
<section class="card" id="totals"><h2>Totals</h2><ul class="totals">${totals(rows, facts)}</ul></section>
<section class="card" id="next-steps"><h2>Next steps</h2>${steps}</section>
<section class="card" id="tasks"><h2>Tasks</h2>
<table><thead><tr><th>task</th><th class="objective-head">objective</th><th class="outcome-head">outcome</th><th>conflicting files</th><th class="where-head">branch, worktree, landing commit</th><th>rounds</th><th>cost</th><th class="step-head">next step</th></tr></thead>
<tbody>
${rows.map(rowHtml).join('\n')}
</tbody></table></section>
</main></body></html>
`;
}
