// Target 5, in process: a round of the whole tool (machine, call and report validation, round prompt, result
// rendering) with an instant in-process provider, against a bare async `for` loop doing the same per-round work
// (renderRoundPrompt, provider.start, await the report, checkReport, handoff size check). Side by side, interleaved,
// medians. Run: npm run build && node bench/in-process.mjs [--runs 20 --rounds 256 --pairs 7] [--tool-only]
// [--before DIR]: DIR is another build's dist/ (e.g. of the base commit); its tool runs in the same pairs, interleaved,
// so a change is measured against its base side by side. [--cpu]: the process's CPU time (user + system,
// `process.cpuUsage`) instead of wall time: on a loaded machine it moves far less with the other processes.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  checkReport,
  createProviderRegistry,
  createRalphTool,
  handoffSize,
  renderResultText,
  renderRoundPrompt,
  reportJsonSchema,
} from '../dist/index.js';
import { bareProvider, finish, log, median, clock as now, numberFlag, row, stringFlag } from './lib.mjs';

const beforeDir = stringFlag('before');
const before =
  beforeDir === undefined ? undefined : await import(pathToFileURL(resolve(beforeDir, 'index.js')).href);

const runs = numberFlag('runs', 20);
const rounds = numberFlag('rounds', 256);
const pairs = numberFlag('pairs', 7);
const objective = 'bench';
const agent = { id: 'bench', cwd: process.cwd() };
const provider = bareProvider;
/** A tool of one build (this one, or the --before one) over the bare provider. */
function toolOf(build) {
  const providers = build.createProviderRegistry();
  providers.register(provider);
  return build.createRalphTool({ subagentProvider: 'bench', maxRounds: rounds }, { providers });
}
const tool = toolOf({ createProviderRegistry, createRalphTool });
const beforeTool = before === undefined ? undefined : toolOf(before);

async function viaTool(tool) {
  const start = now();
  for (let i = 0; i < runs; i += 1) {
    const envelope = await tool.execute({ objective }, { agent });
    tool.render.result({ objective }, envelope);
  }
  return ((now() - start) * 1000) / (runs * rounds);
}

async function bareLoop() {
  const controller = new AbortController();
  const start = now();
  for (let i = 0; i < runs; i += 1) {
    let handoff = null;
    for (let round = 1; round <= rounds; round += 1) {
      const prompt = renderRoundPrompt({ objective, round, maxRounds: rounds, handoff });
      const request = {
        runId: `r${i}`,
        round,
        maxRounds: rounds,
        objective,
        handoff,
        prompt,
        outputSchema: reportJsonSchema,
        cwd: agent.cwd,
        parent: agent,
      };
      const child = await provider.start(request, { signal: controller.signal, terminationGraceMs: 5000 });
      const check = checkReport(await child.report);
      if (!check.ok || handoffSize(check.report) > 16_384) throw new Error('bad report');
      handoff = check.report;
    }
    renderResultText(
      {
        runId: `r${i}`,
        agentsStarted: rounds,
        result: { status: 'budget-limited', rounds, report: handoff },
      },
      16_384,
    );
  }
  return ((now() - start) * 1000) / (runs * rounds);
}

if (process.argv.includes('--tool-only')) {
  // For node --cpu-prof: only the tool's side, so that the profile shows where its rounds go.
  for (let i = 0; i < pairs; i += 1) log(`tool ${(await viaTool(tool)).toFixed(1)} µs/round`);
  process.exit(0);
}
await bareLoop();
await viaTool(tool);
if (beforeTool !== undefined) await viaTool(beforeTool);
const toolUs = [];
const beforeUs = [];
const bareUs = [];
const ratios = [];
for (let i = 0; i < pairs; i += 1) {
  const b = await bareLoop();
  const t = await viaTool(tool);
  const o = beforeTool === undefined ? undefined : await viaTool(beforeTool);
  bareUs.push(b);
  toolUs.push(t);
  if (o !== undefined) beforeUs.push(o);
  ratios.push(t / b);
  log(
    `pair ${i + 1}: bare ${b.toFixed(1)} µs/round, tool ${t.toFixed(1)} µs/round, ratio ${(t / b).toFixed(2)}` +
      (o === undefined ? '' : `, before ${o.toFixed(1)} µs/round`),
  );
}
const us = median(toolUs);
const ratio = median(ratios);
finish([
  ...(beforeTool === undefined
    ? []
    : [
        row('In process: tool, the --before build', +median(beforeUs).toFixed(1), 'µs/round', '(base)', null),
      ]),
  row('In process: bare async for loop', +median(bareUs).toFixed(1), 'µs/round', '(floor)', null),
  row(
    'In process: tool, instant provider',
    +us.toFixed(1),
    'µs/round',
    '≤ 100 µs',
    us <= 100,
    `${runs} runs × ${rounds} rounds`,
  ),
  row('In process: tool / bare loop', +ratio.toFixed(2), '×', '≤ 2×', ratio <= 2, `median of ${pairs} pairs`),
]);
