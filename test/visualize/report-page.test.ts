import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RunModel } from '../../src/inspect/run-model.js';
import { renderRunPage, renderRunRegions, runPageUpdate } from '../../src/visualize/report-page.js';
import { inlineSvg } from '../../src/visualize/report-page-svg.js';
import { formatDuration, formatOffset, jsonForScript } from '../../src/visualize/report-page-text.js';
import {
  budgetLimitedRun,
  cancelledRun,
  completeRun,
  demoRun,
  failedRun,
  hostileRun,
  refusedRun,
  runningRun,
} from '../support/run-models.js';

const MACHINE_SVG = readFileSync(new URL('../fixtures/machine/ralph-like.svg', import.meta.url), 'utf8');
const page = (model: RunModel | null, live?: { eventsUrl: string }) =>
  renderRunPage(model, live === undefined ? { machineSvg: MACHINE_SVG } : { machineSvg: MACHINE_SVG, live });

/** The JSON the page carries in its `run-model` script element, parsed back. */
function embeddedModel(html: string): unknown {
  const match = /<script type="application\/json" id="run-model">([\s\S]*?)<\/script>/.exec(html);
  if (match === null) throw new Error('no run-model element');
  return JSON.parse(match[1]!);
}

describe('the run page is one self-contained file', () => {
  const every = [completeRun(1), demoRun(), budgetLimitedRun(256), failedRun(), refusedRun(), cancelledRun()];

  it('names no address to load: no src or href to http(s), no @import, no url() but data:', () => {
    for (const model of every) {
      const html = page(model);
      expect(html).not.toMatch(/\b(src|href)\s*=\s*["']?\s*(https?:)?\/\//i);
      expect(html).not.toMatch(/@import/i);
      expect(html).not.toMatch(/url\(\s*["']?(?!data:)/i);
      expect(html).not.toMatch(/<!DOCTYPE svg/i);
    }
  });

  it('tells the browser to fetch nothing and to run only its own script', () => {
    const html = page(demoRun());
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("connect-src 'none'");
    expect(page(runningRun(), { eventsUrl: '/events' })).toContain("connect-src 'self'");
    expect(html.match(/<script\b/g)).toHaveLength(2);
  });

  it('carries the model as JSON that reads back as the same model', () => {
    for (const model of [...every, hostileRun()]) expect(embeddedModel(page(model))).toEqual(model);
    expect(embeddedModel(page(null))).toBeNull();
  });
});

describe('every text of the run is escaped', () => {
  it('shows markup from the objective, the summaries and the evidence as text, never as markup', () => {
    const html = page(hostileRun());
    expect(html).not.toContain('<script>window.__pwned');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('<b onmouseover');
    expect(html).toContain('&lt;script&gt;window.__pwned=1&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt;objective');
    // The JSON copy cannot end its element early either.
    expect(jsonForScript({ summary: '</script><!--' })).toBe('{"summary":"\\u003c/script>\\u003c!--"}');
  });

  it('escapes the values a model holds as numbers too: a crafted one cannot put markup in the page', () => {
    const refresh = '<meta http-equiv="refresh" content="0;url=data:,moved">';
    const crafted = failedRun();
    const { ending } = crafted;
    if (ending === null || ending.result.ok) throw new Error('failedRun() is a failed run');
    Object.assign(ending.result.failure, { round: refresh });
    Object.assign(crafted, { maxRounds: refresh, agentsStarted: refresh });
    const html = page(crafted);
    expect(html).not.toContain('<meta http-equiv="refresh"');
    expect(html).toContain('&lt;meta http-equiv=&quot;refresh&quot;');
  });
});

describe('the page says what the run did', () => {
  it('lists every round with its number, outcome, summary, evidence, next steps and child', () => {
    const model = demoRun();
    const { rounds } = renderRunRegions(model);
    for (const round of model.rounds) {
      expect(rounds).toContain(`id="round-${round.round}"`);
      expect(rounds).toContain(round.report!.summary);
      expect(rounds).toContain(round.report!.evidence[0]);
      expect(rounds).toContain(round.childId);
    }
    expect(rounds).toContain('Do task 2');
  });

  it('opens every round of a short run, and only the last of a long one', () => {
    expect(renderRunRegions(demoRun()).rounds.match(/<details[^>]* open>/g)).toHaveLength(3);
    const long = renderRunRegions(budgetLimitedRun(256)).rounds;
    expect(long.match(/<details class="round/g)).toHaveLength(256);
    expect(long.match(/<details[^>]* open>/g)).toEqual([
      '<details class="round outcome-budget-limited" id="round-256" open>',
    ]);
    expect(long.match(/class="cell /g)).toHaveLength(256);
  });

  it('shows the run facts: run id, objective, cap, agents started, start time, package version', () => {
    const { head } = renderRunRegions(demoRun());
    expect(head).toContain('V1StGXR8_Z5jdHi6B-myT');
    expect(head).toContain('Work through TASKS.md in this workspace');
    expect(head).toContain('3 of 256');
    expect(head).toMatch(/Agents started<\/dt><dd>3</);
    expect(head).toContain('2025-05-04T09:30:00.000Z');
    expect(head).toMatch(/ralph-machine<\/dt><dd>0\.1\.0</);
  });

  it('shows a settled result with its label and final report', () => {
    const { head } = renderRunRegions(budgetLimitedRun(4));
    expect(head).toContain('Budget limited');
    expect(head).toContain('Ralph reached its 4 rounds limit; the worker reported work remaining.');
    expect(head).toContain('Round 4: did task 4');
  });

  it('shows, under the label of a run whose time limit stopped a round, which round and whose report is final', () => {
    const model = budgetLimitedRun(3);
    const ending = model.ending;
    if (ending === null || !ending.result.ok) throw new Error('budgetLimitedRun settles');
    ending.result.envelope.result.limit = { kind: 'time', maxWallTimeMs: 7_200_000, unfinishedRound: 3 };
    const { head } = renderRunRegions(model);
    expect(head).toContain(
      '<p class="label">Ralph reached its 2h time limit; the worker reported work remaining.</p>' +
        '<p class="note">Round 3 was stopped when the time ran out, before it reported; the final report is round 2&#39;s.</p>',
    );
  });

  it('shows a failure with its message, code, round, detail and the last handoff as JSON', () => {
    const { head } = renderRunRegions(failedRun());
    expect(head).toContain('Ralph round 2 child failed before producing a structured report.');
    expect(head).toContain('<code>child-failed</code>');
    expect(head).toMatch(/Round<\/dt><dd>2</);
    expect(head).toContain('round 2 crashed on purpose');
    expect(head).toContain(
      '<h3>Last handoff</h3><pre class="json">{\n  &quot;status&quot;: &quot;continue&quot;',
    );
  });

  it('shows a refused call with nothing started, and a cancelled run with its cancelled round', () => {
    const refused = renderRunRegions(refusedRun());
    expect(refused.head).toContain('Refused');
    expect(refused.head).toContain('Ralph objective must be a non-empty string');
    expect(refused.rounds).toContain('No round started.');
    const cancelled = renderRunRegions(cancelledRun());
    expect(cancelled.head).toContain('Ralph workflow was cancelled');
    expect(cancelled.rounds).toContain('Cancelled before it reported.');
  });

  it('shows a running run as running, and the live page before any event as waiting', () => {
    const { head, rounds } = renderRunRegions(runningRun(1));
    expect(head).toContain('<h2>Running</h2>');
    expect(head).toContain('<code>awaitingReport</code>, round 2 of 5');
    expect(rounds).toContain('Running: no report yet.');
    expect(renderRunRegions(null).head).toContain('Waiting for the run to start');
    expect(runPageUpdate(null).title).toBe('ralph run: waiting');
  });
});

describe('the statechart goes in as inline SVG', () => {
  it('keeps the svg element and drops the XML prolog, the doctype and comments', () => {
    const svg = inlineSvg(MACHINE_SVG);
    expect(svg.startsWith('<svg ')).toBe(true);
    expect(svg.endsWith('</svg>')).toBe(true);
    expect(svg).not.toMatch(/<\?xml|<!DOCTYPE|<!--/);
    expect(svg).toContain('id="state&#45;complete"');
  });

  it('says the diagram is missing when there is none', () => {
    expect(inlineSvg('')).toBe('');
    expect(renderRunPage(demoRun(), { machineSvg: '' })).toContain('The machine diagram is missing');
  });
});

describe('times read as a person reads them', () => {
  it('writes offsets as +m:ss.s and durations in ms, s, min or h', () => {
    expect(formatOffset(0)).toBe('+0:00.0');
    expect(formatOffset(61_250)).toBe('+1:01.3');
    expect(formatOffset(3_723_000)).toBe('+1:02:03');
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(12_340)).toBe('12.3 s');
    expect(formatDuration(245_000)).toBe('4 min 5 s');
    expect(formatDuration(3_720_000)).toBe('1 h 2 min');
  });
});
