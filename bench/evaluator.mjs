// Issue 31, "Measure it": the corpus of bench/evaluator-corpus (scripted false completions and honest ones) run
// through the built CLI, one round each (`--max-rounds 1`), without an evaluator and with each evaluator: the
// scripted one (`--evaluator-command`, the careful reviewer of reviewer.mjs) and, when installed, the real Claude Code
// and Codex (`--evaluator claude|codex`) against the agents tier's scripted model servers (see
// evaluator-corpus/scripted-models.mjs for what their scripted model does and does not show). Each case runs in a
// fresh temp git workspace, the runs without and with the evaluators side by side (interleaved, per case and pair).
// Prints how many false completions end `complete` and how many honest ones are accepted, and the time an
// evaluation adds to a round: the median over the pairs of (with − without), and of with / without.
// Run: npm run bench:evaluator [-- --pairs 3 --evaluators scripted,claude,codex --concurrency 1]
// --concurrency N runs N cases at once (for the corpus test; the timings then mean little). --json prints the
// result as one JSON line.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CASES, evaluatorScript, FALSE_KINDS } from './evaluator-corpus/cases.mjs';
import { runCase } from './evaluator-corpus/run.mjs';
import { claudeEvaluator, codexEvaluator } from './evaluator-corpus/scripted-models.mjs';
import { jsonMode, log, median, numberFlag, stringFlag } from './lib.mjs';

const pairs = numberFlag('pairs', 3);
const concurrency = numberFlag('concurrency', 1);
const wanted = (stringFlag('evaluators') ?? 'scripted,claude,codex').split(',');

/** The scripted evaluator command; it logs how long each review took to a temp file, read as `desk.reviewMs`. */
function scriptedEvaluator() {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-bench-evaluator-reviews-'));
  const reviewLog = join(dir, 'reviews.log');
  return {
    name: 'scripted',
    evaluator: { command: `"${process.execPath}" "${evaluatorScript}"` },
    env: { ...process.env, RALPH_BENCH_REVIEW_LOG: reviewLog },
    desk: {
      get reviewMs() {
        return existsSync(reviewLog) ? readFileSync(reviewLog, 'utf8').trim().split('\n').map(Number) : [];
      },
    },
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The evaluators of this run: the scripted one, and each real CLI that is installed (else a note). */
async function evaluators() {
  const list = [];
  const notes = [];
  if (wanted.includes('scripted')) list.push(scriptedEvaluator());
  for (const [name, make] of [
    ['claude', claudeEvaluator],
    ['codex', codexEvaluator],
  ]) {
    if (!wanted.includes(name)) continue;
    const made = await make();
    if (made === undefined)
      notes.push(`${name}: not installed in .agents-cache (npm run test:agents installs it): skipped`);
    else list.push(made);
  }
  return { list, notes };
}

/** Runs `jobs` (functions returning promises) `limit` at a time, in order of start. */
async function inBatches(jobs, limit) {
  const results = [];
  for (let i = 0; i < jobs.length; i += limit)
    results.push(...(await Promise.all(jobs.slice(i, i + limit).map((job) => job()))));
  return results;
}

/** One case, once without an evaluator, then once with each evaluator. */
function casePass(seedCase, list) {
  return async () => {
    const without = await runCase(seedCase);
    const withEach = {};
    for (const e of list)
      withEach[e.name] = await runCase(seedCase, {
        evaluator: e.evaluator,
        env: e.env,
        onWorkspace: (workspace) => {
          if (e.desk !== undefined) e.desk.workspace = workspace;
        },
      });
    return { seedCase, without, withEach };
  };
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const { list, notes } = await evaluators();
const loadBefore = load();
const passes = [];
/** How long each evaluator's reviews took (its scripted model's, or the scripted evaluator's), read before closing. */
const reviewsOf = {};
try {
  for (let pair = 0; pair < pairs; pair += 1) {
    const runs = await inBatches(
      CASES.map((c) => casePass(c, list)),
      concurrency,
    );
    passes.push(runs);
    log(`pair ${pair + 1} of ${pairs} done (load ${load()})`);
  }
} finally {
  for (const e of list) reviewsOf[e.name] = e.desk === undefined ? undefined : [...e.desk.reviewMs];
  for (const e of list) await e.close?.();
}
const loadAfter = load();

const columns = ['none', ...list.map((e) => e.name)];
/** Every run of one case and one column (none: without an evaluator), over the pairs. */
const runsOf = (name, column) =>
  passes.map((runs) => {
    const run = runs.find((r) => r.seedCase.name === name);
    return column === 'none' ? run.without : run.withEach[column];
  });
/** The one status a case ended with in every pair, or each of them when they differ. */
const outcome = (name, column) => {
  const ends = [
    ...new Set(runsOf(name, column).map((r) => (r.verdict ? `${r.status} (${r.verdict})` : r.status))),
  ];
  return ends.join(' / ');
};
const endedComplete = (name, column) => runsOf(name, column).every((r) => r.status === 'complete');
const falseCases = CASES.filter((c) => c.truth === 'false');
const honestCases = CASES.filter((c) => c.truth === 'honest');

const summary = columns.map((column) => {
  const row = {
    evaluator: column,
    falseComplete: falseCases.filter((c) => endedComplete(c.name, column)).length,
    honestComplete: honestCases.filter((c) => endedComplete(c.name, column)).length,
    failed: CASES.filter((c) => runsOf(c.name, column).some((r) => r.status === 'failed')).map((c) => ({
      name: c.name,
      problem: runsOf(c.name, column).find((r) => r.status === 'failed').problem,
    })),
  };
  if (column === 'none') return row;
  const added = [];
  const ratios = [];
  const baseline = [];
  const evaluated = [];
  for (const c of CASES) {
    const withouts = runsOf(c.name, 'none');
    runsOf(c.name, column).forEach((r, pair) => {
      baseline.push(withouts[pair].ms);
      evaluated.push(r.ms);
      added.push(r.ms - withouts[pair].ms);
      ratios.push(r.ms / withouts[pair].ms);
    });
  }
  const reviews = reviewsOf[column];
  return {
    ...row,
    roundMs: median(baseline),
    evaluatedMs: median(evaluated),
    addedMs: median(added),
    ratio: median(ratios),
    reviewMs: reviews === undefined || reviews.length === 0 ? undefined : median(reviews),
    unmatched: list.find((e) => e.name === column).unmatched?.() ?? 0,
  };
});

const result = {
  cases: CASES.map((c) => ({
    name: c.name,
    truth: c.truth,
    kind: c.kind,
    ends: Object.fromEntries(columns.map((column) => [column, outcome(c.name, column)])),
    findings: Object.fromEntries(
      columns.slice(1).map((column) => [column, runsOf(c.name, column)[0].findings]),
    ),
  })),
  summary,
  notes,
  pairs,
  load: { before: loadBefore, after: loadAfter },
};

if (jsonMode) {
  console.log(JSON.stringify(result));
} else {
  const table = (header, rows) => {
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    const line = (cells) => `| ${cells.map((v, i) => v.padEnd(widths[i])).join(' | ')} |`;
    console.log(line(header));
    console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
    for (const r of rows) console.log(line(r));
  };
  console.log(
    `\n${cpus().length} cores, node ${process.version}, load ${loadBefore} → ${loadAfter}; ${pairs} pairs, --max-rounds 1\n`,
  );
  table(
    ['case', 'truth', 'what the worker did', ...columns.map((c) => (c === 'none' ? 'no evaluator' : c))],
    result.cases.map((c) => [
      c.name,
      c.truth,
      c.truth === 'false' ? FALSE_KINDS[c.kind] : 'the whole objective',
      ...columns.map((column) => c.ends[column]),
    ]),
  );
  console.log('');
  const ms = (v) => (v === undefined ? '' : `${v.toFixed(0)} ms`);
  table(
    [
      'evaluator',
      'false completions ending complete',
      'honest completions accepted',
      'round without evaluation',
      'round with evaluation',
      'evaluation adds (median)',
      'with / without (median)',
      "the review's own checks (median)",
    ],
    summary.map((s) => [
      s.evaluator === 'none' ? 'none' : s.evaluator,
      `${s.falseComplete} of ${falseCases.length}`,
      `${s.honestComplete} of ${honestCases.length}`,
      ms(s.roundMs),
      ms(s.evaluatedMs),
      ms(s.addedMs),
      s.ratio === undefined ? '' : `${s.ratio.toFixed(2)}×`,
      ms(s.reviewMs),
    ]),
  );
  for (const s of summary)
    for (const f of s.failed) console.log(`FAILED: ${s.evaluator} ${f.name}: ${f.problem}`);
  for (const note of notes) console.log(note);
}
