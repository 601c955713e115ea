/**
 * The run page's whole stylesheet, inlined: system fonts only, nothing fetched. Tones: good (complete), warn (blocked,
 * out of rounds), bad (failed, refused), muted (cancelled), live (running). The statechart is Graphviz's SVG; the
 * script marks its groups `visited`, `current`, `run-final` and `taken` (not `final`: the SVG's own class for every
 * final state of the machine), and this sheet paints them over Graphviz's presentation attributes. A visited box (a
 * compound state, a Graphviz cluster) gets the border only, so that the boxes inside it still read apart.
 */
export const RUN_PAGE_STYLE = `
:root {
  color-scheme: light;
  --fg: #1f2328; --muted: #656d76; --line: #d0d7de; --bg: #f6f8fa; --card: #fff;
  --good: #1a7f37; --good-bg: #dafbe1; --warn: #9a6700; --warn-bg: #fff8c5;
  --bad: #cf222e; --bad-bg: #ffebe9; --live: #0969da; --live-bg: #ddf4ff; --mute: #6e7781; --mute-bg: #eaeef2;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
}
* { box-sizing: border-box; }
body {
  margin: 0; padding: 16px 24px 48px; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
main, [data-region="head"] { display: grid; gap: 16px; min-width: 0; }
main { max-width: 1200px; margin: 0 auto; }
h1 { font-size: 20px; margin: 0; white-space: nowrap; }
h2 { font-size: 16px; margin: 0 0 10px; }
h3 { font-size: 14px; margin: 14px 0 6px; }
h4 { font-size: 12px; margin: 10px 0 4px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
code, pre, .mono { font-family: var(--mono); font-size: 12.5px; }
pre { margin: 0; padding: 10px; background: var(--bg); border: 1px solid var(--line); border-radius: 6px;
  overflow: auto; max-height: 360px; white-space: pre-wrap; word-break: break-word; }
ul { margin: 0; padding-left: 20px; }
li { margin: 2px 0; word-break: break-word; }
.none { color: var(--muted); font-style: italic; margin: 0; }
.text { white-space: pre-wrap; word-break: break-word; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; }
.title { display: flex; align-items: center; gap: 12px; min-width: 0; }
.objective-line { color: var(--muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; min-width: 0; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 12px; font-weight: 600;
  border: 1px solid currentColor; white-space: nowrap; }
.tone-good { color: var(--good); } .tone-warn { color: var(--warn); } .tone-bad { color: var(--bad); }
.tone-muted { color: var(--mute); } .tone-live { color: var(--live); }
.badge.tone-good { background: var(--good-bg); } .badge.tone-warn { background: var(--warn-bg); }
.badge.tone-bad { background: var(--bad-bg); } .badge.tone-muted { background: var(--mute-bg); }
.badge.tone-live { background: var(--live-bg); }
.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 8px 20px; margin: 0; }
.fact { min-width: 0; } .fact.wide { grid-column: 1 / -1; }
.fact dt { font-size: 12px; color: var(--muted); }
.fact dd { margin: 0; overflow-wrap: anywhere; }
.objective { max-height: 9em; overflow: auto; }
.ending { border-left: 4px solid currentColor; }
.ending > * { color: var(--fg); }
.ending > h2 { color: inherit; }
.ending .label { font-weight: 600; margin: 0 0 8px; }
.ending .message, .ending .note { margin: 0 0 10px; }
/* The path's states beside the diagram: at 1,280 px the whole diagram is too small to read, the list is not. */
.chart-layout { display: grid; grid-template-columns: minmax(0, 1fr) minmax(180px, 220px); gap: 16px; align-items: start; }
.chart-layout > .none { grid-column: 1; }
.path h3 { margin-top: 0; }
.path-states { margin: 0; padding-left: 22px; font-size: 13px; }
.path-states .times { color: var(--muted); }
.path-states .where { font-size: 12px; color: var(--live); }
.path-states li.last code { font-weight: 600; }
.chart-box { overflow: auto; text-align: center; }
.chart-box svg { max-width: 100%; height: auto; cursor: zoom-in; }
.chart-box.natural svg { max-width: none; cursor: zoom-out; }
.chart .legend { color: var(--muted); font-size: 12px; margin: 8px 0 0; display: flex; gap: 16px; flex-wrap: wrap; }
.chart .legend .hint { margin-left: auto; }
.chart .legend .key::before { content: ""; display: inline-block; width: 10px; height: 10px; border-radius: 3px;
  margin-right: 5px; vertical-align: -1px; border: 2px solid var(--live); }
.chart .legend .key.l-visited::before { background: var(--live-bg); }
.chart .legend .key.l-final::before { background: var(--good-bg); border-color: var(--good); }
.chart .legend .key.l-current::before { background: var(--live); }
svg.has-path :is(.state, .initial):not(.visited) { opacity: .35; }
svg.has-path .edge:not(.taken) { opacity: .25; }
svg .visited :is(path, polygon, ellipse) { stroke: var(--live); stroke-width: 2; }
svg .visited:not(.cluster) :is(path, polygon, ellipse):not([fill="none"]) { fill: var(--live-bg); }
svg .state.current :is(path, polygon, ellipse):not([fill="none"]) { fill: var(--live); }
svg .state.current text { fill: #fff; }
svg .state.run-final :is(path, polygon, ellipse) { stroke-width: 3; }
svg .state.run-final.tone-good :is(path, polygon, ellipse) { stroke: var(--good); }
svg .state.run-final.tone-good :is(path, polygon, ellipse):not([fill="none"]) { fill: var(--good-bg); }
svg .state.run-final.tone-warn :is(path, polygon, ellipse) { stroke: var(--warn); }
svg .state.run-final.tone-warn :is(path, polygon, ellipse):not([fill="none"]) { fill: var(--warn-bg); }
svg .state.run-final.tone-bad :is(path, polygon, ellipse) { stroke: var(--bad); }
svg .state.run-final.tone-bad :is(path, polygon, ellipse):not([fill="none"]) { fill: var(--bad-bg); }
svg .state.run-final.tone-muted :is(path, polygon, ellipse) { stroke: var(--mute); }
svg .state.run-final.tone-muted :is(path, polygon, ellipse):not([fill="none"]) { fill: var(--mute-bg); }
svg .edge.taken path { stroke: var(--live); stroke-width: 2; }
svg .edge.taken polygon { stroke: var(--live); fill: var(--live); }
svg .edge.taken text { fill: var(--live); }
.timeline-head { display: flex; align-items: baseline; gap: 12px; }
.timeline-head .tools { margin-left: auto; display: flex; gap: 6px; }
.count { color: var(--muted); font-weight: 400; }
button { font: inherit; font-size: 12px; padding: 2px 10px; border: 1px solid var(--line); border-radius: 6px;
  background: var(--bg); color: var(--fg); cursor: pointer; }
button:hover { background: var(--mute-bg); }
.strip { display: flex; flex-wrap: wrap; gap: 2px; margin: 0 0 10px; }
.cell { width: 11px; height: 11px; border-radius: 2px; background: var(--mute-bg); }
.cell:hover, .cell:focus { outline: 2px solid var(--fg); }
.cell.outcome-continue { background: #9ec5fe; } .cell.outcome-complete { background: var(--good); }
.cell.outcome-blocked, .cell.outcome-budget-limited { background: #d4a72c; }
.cell.outcome-failed { background: var(--bad); } .cell.outcome-running { background: var(--live); }
.cell.outcome-cancelled { background: var(--mute); } .cell.outcome-rejected { background: #d4a72c; }
.columns, .round > summary { display: grid; grid-template-columns: 3rem 5rem 5.5rem 8rem minmax(0, 1fr);
  gap: 10px; align-items: baseline; }
.with-usage .columns, .with-usage .round > summary {
  grid-template-columns: 3rem 5rem 5.5rem 5.5rem 8rem minmax(0, 1fr); }
.round .used { font-variant-numeric: tabular-nums; font-size: 12.5px; }
.columns { font-size: 12px; color: var(--muted); padding: 0 8px 4px 26px; border-bottom: 1px solid var(--line); }
.round { border-bottom: 1px solid var(--line); }
.round > summary { padding: 5px 8px 5px 26px; cursor: pointer; list-style: none; position: relative; }
.round > summary::-webkit-details-marker { display: none; }
.round > summary::before { content: "▸"; position: absolute; left: 9px; color: var(--muted); }
.round[open] > summary::before { content: "▾"; }
.round > summary:hover { background: var(--bg); }
.round .n { font-weight: 600; text-align: right; font-variant-numeric: tabular-nums; }
.round .at, .round .dur { color: var(--muted); font-variant-numeric: tabular-nums; font-size: 12.5px; }
.round .sum { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.round[open] .sum { visibility: hidden; }
.round .body { padding: 2px 8px 12px calc(26px + 3rem + 10px); }
.round .child { color: var(--muted); font-size: 12px; margin: 10px 0 0; }
.round .badge { justify-self: start; font-weight: 500; }
.badge.outcome-continue { color: var(--live); } .badge.outcome-complete { color: var(--good); background: var(--good-bg); }
.badge.outcome-blocked, .badge.outcome-budget-limited { color: var(--warn); background: var(--warn-bg); }
.badge.outcome-failed { color: var(--bad); background: var(--bad-bg); }
.badge.outcome-cancelled { color: var(--mute); background: var(--mute-bg); }
.badge.outcome-rejected { color: var(--warn); background: var(--warn-bg); }
.evaluation { border-top: 1px solid var(--line); margin-top: 10px; }
.evaluation .verdict { margin: 4px 0; }
.badge.verdict-accept { color: var(--good); background: var(--good-bg); }
.badge.verdict-reject, .badge.verdict-stopped { color: var(--warn); background: var(--warn-bg); }
.badge.verdict-failed { color: var(--bad); background: var(--bad-bg); }
.badge.verdict-cancelled { color: var(--mute); background: var(--mute-bg); }
.badge.verdict-running { color: var(--live); }
.badge.outcome-running { color: #fff; background: var(--live); border-color: var(--live); }
.question { border-top: 1px solid var(--line); margin-top: 10px; }
.question .verdict { margin: 4px 0; }
.badge.question-answered { color: var(--good); background: var(--good-bg); }
.badge.question-waiting { color: #fff; background: var(--live); border-color: var(--live); }
.badge.question-given-up, .badge.question-timed-out, .badge.question-time-limit { color: var(--warn); background: var(--warn-bg); }
.badge.question-unavailable { color: var(--bad); background: var(--bad-bg); }
.badge.question-cancelled { color: var(--mute); background: var(--mute-bg); }
.answer-box { border-color: var(--live); } .answer-box[hidden] { display: none; }
.answer-box label { display: block; margin: 10px 0 4px; color: var(--muted); }
.answer-box textarea { width: 100%; box-sizing: border-box; font: inherit; min-height: 5em; }
.answer-box .actions { display: flex; gap: 8px; margin-top: 6px; }
.round:target > summary { background: var(--live-bg); }
.live-note { color: var(--muted); font-size: 12px; margin: 0; text-align: right; }
@media (max-width: 720px) {
  body { padding: 10px; }
  .columns { display: none; }
  .round > summary { grid-template-columns: 2.5rem 1fr auto; }
  .round .at { display: none; }
  .round .sum { grid-column: 1 / -1; }
  .round[open] .sum { display: none; }
  .round .body { padding-left: 12px; }
}
@media print { .tools, .strip { display: none; } details.round { break-inside: avoid; } }
`;
