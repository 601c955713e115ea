import { createHash } from 'node:crypto';
import type { RunModel } from '../inspect/run-model.js';
import { answerBox } from './report-page-answer-box.js';
import type { RunPageBatch } from './report-page-batch.js';
import { RUN_PAGE_SCRIPT } from './report-page-script.js';
import { renderRunRegions, runTitle } from './report-page-sections.js';
import { RUN_PAGE_STYLE } from './report-page-style.js';
import { inlineSvg } from './report-page-svg.js';
import { escapeHtml, jsonForScript } from './report-page-text.js';

export { type RunPageRegions, renderRunRegions, runTitle } from './report-page-sections.js';

/** What the run page is drawn with besides the model. */
export interface RunPageOptions {
  /** The machine's statechart as Graphviz SVG (`visualizations/ralph.svg`): groups `state-<key>`, `edge-<source>-<n>`. */
  machineSvg: string;
  /**
   * Set on the live inspector's page: where its Server-Sent Events stream is (same origin), and, for a run that asks
   * (`--ask`), where a person's answer is posted: with `answerUrl` a question the run waits on shows an answer box.
   */
  live?: { eventsUrl: string; answerUrl?: string };
  /** Set on the page of a batch task's run: how the task ended for its batch, shown beside the run's own status. */
  batch?: RunPageBatch;
}

/** One update of the live page: the new model, the page's title and its re-rendered regions. */
export interface RunPageUpdate {
  model: RunModel | null;
  title: string;
  regions: ReturnType<typeof renderRunRegions>;
}

/** The update the live page applies for this model. */
export function runPageUpdate(model: RunModel | null): RunPageUpdate {
  return { model, title: runTitle(model), regions: renderRunRegions(model) };
}

const SCRIPT_HASH = `sha256-${createHash('sha256').update(RUN_PAGE_SCRIPT).digest('base64')}`;

/**
 * The policy that makes the page's promise of no network enforced by the browser, not only kept by its markup: nothing
 * loads from anywhere, the one script that runs is the page's own (by hash; markup a run smuggled past the escaping
 * could not run a script or a handler), and only the live page may open its own event stream.
 */
function contentSecurityPolicy(live: boolean): string {
  return [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    `script-src '${SCRIPT_HASH}'`,
    'img-src data:',
    `connect-src ${live ? "'self'" : "'none'"}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/**
 * The run page: one self-contained HTML document (inline style, inline script, the machine's SVG inline; nothing
 * fetched) showing the run's facts, its ending, the statechart with the path it took, and every round. Every text
 * of the run is escaped; the model rides along as JSON for the script, and for anyone who wants the data back. With
 * `live`, the page follows the inspector's event stream and updates in place. A null model is the live page before
 * the run's first event.
 */
export function renderRunPage(model: RunModel | null, options: RunPageOptions): string {
  const regions = renderRunRegions(model, options.batch);
  const svg = inlineSvg(options.machineSvg);
  const live = options.live;
  const chart =
    svg === ''
      ? '<p class="none">The machine diagram is missing (visualizations/ralph.svg).</p>'
      : `<div class="chart-box">${svg}</div>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(live !== undefined)}">
<meta name="generator" content="ralph-machine">
<link rel="icon" href="data:,">
<title>${escapeHtml(runTitle(model))}${options.batch === undefined ? '' : escapeHtml(`; batch: ${options.batch.outcome.label}`)}</title>
<style>${RUN_PAGE_STYLE}</style>
</head>
<body${live === undefined ? '' : ` data-events="${escapeHtml(live.eventsUrl)}"`}>
<main>
${live === undefined ? '' : '<p class="live-note" id="live-note">Live: connecting…</p>'}
<div data-region="head">${regions.head}</div>
${live?.answerUrl === undefined ? '' : answerBox(live.answerUrl)}
<section class="card chart" id="chart"><h2>Statechart</h2>
<div class="chart-layout">${chart}<aside class="path" data-region="path">${regions.path}</aside></div>
<p class="legend"><span class="key l-visited">visited</span><span class="key l-current">current</span><span class="key l-final">ended here</span><span class="hint">click the diagram for its full size</span></p></section>
<div data-region="rounds">${regions.rounds}</div>
</main>
<script type="application/json" id="run-model">${jsonForScript(model)}</script>
<script>${RUN_PAGE_SCRIPT}</script>
</body>
</html>
`;
}
