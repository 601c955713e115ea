import { createHash } from 'node:crypto';
import { RUN_STATES } from '../../../fleet/dashboard-queries.js';
import { DASHBOARD_SCRIPT } from './page-script.js';

const SCRIPT_HASH = `sha256-${createHash('sha256').update(DASHBOARD_SCRIPT).digest('base64')}`;

/** Nothing loads from anywhere; the one script is the page's own (by hash); it talks to its own server only. */
const POLICY = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  `script-src '${SCRIPT_HASH}'`,
  "connect-src 'self'",
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1f2328; background: #f6f8fa; }
main { max-width: 1400px; margin: 0 auto; padding: 16px 24px; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; }
.bar { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin: 8px 0; }
.muted, #updated, #counts { color: #59636e; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid #d1d9e0; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid #d1d9e0; vertical-align: top; }
th { background: #f0f3f6; font-weight: 600; }
td.objective { max-width: 420px; overflow-wrap: anywhere; white-space: pre-wrap; }
td.rounds { text-align: right; }
.state { font-weight: 600; }
.question { font-weight: 400; margin-top: 4px; } .question .asked { white-space: pre-wrap; color: #9a6700; }
.question textarea { display: block; width: 100%; min-width: 16em; }
.s-running { color: #0969da; } .s-queued { color: #9a6700; } .s-complete { color: #1a7f37; }
.s-failed, .s-error, .s-refused { color: #d1242f; } .s-cancelled, .s-blocked, .s-budget-limited { color: #8250df; }
.evaluation { font-size: 12px; color: #59636e; } .evaluation.verdict-reject { color: #9a6700; }
.sandbox { font-size: 12px; font-weight: 400; color: #59636e; }
.live { color: #1a7f37; } .expired { color: #d1242f; } .none { color: #59636e; font-style: italic; }
button { font: inherit; }
`;

/**
 * The dashboard page: the fleet's runs (filter, pages, a cancel button on each queued or running one) and its
 * workers, filled and kept current by its script. Self-contained: inline style and script, nothing fetched from
 * anywhere but its own server.
 */
export function renderDashboardPage(pageSize: number): string {
  const options = ['', ...RUN_STATES]
    .map((state) => `<option value="${state}">${state === '' ? 'all' : state}</option>`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${POLICY}">
<meta name="generator" content="ralph-machine">
<link rel="icon" href="data:,">
<title>ralph dashboard</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>ralph dashboard</h1>
<p class="bar"><span id="counts">loading…</span><span id="updated"></span><span id="note"></span></p>
<h2>Runs</h2>
<div class="bar">
<label>Status <select id="status">${options}</select></label>
<button type="button" id="newer" disabled>Newer</button>
<span id="page-number">page 1</span>
<button type="button" id="older" disabled>Older</button>
<span class="muted">${pageSize} a page, newest first</span>
</div>
<table id="runs">
<thead><tr><th>Run</th><th>Objective</th><th>Status</th><th>Worker</th><th>Rounds</th><th>Cost</th><th>Started</th><th>Duration</th><th></th></tr></thead>
<tbody id="runs-body"></tbody>
</table>
<h2>Workers</h2>
<table id="workers">
<thead><tr><th>Worker</th><th>Lease</th><th>Last heartbeat</th><th>Runs held</th><th>Process</th></tr></thead>
<tbody id="workers-body"></tbody>
</table>
</main>
<script>${DASHBOARD_SCRIPT}</script>
</body>
</html>
`;
}
