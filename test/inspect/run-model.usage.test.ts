import { describe, expect, it } from 'vitest';
import { buildRunModel, commandProvider } from '../../src/index.js';
import { renderRunRegions } from '../../src/visualize/report-page-sections.js';
import { useOwnTmpdir } from '../faults/harness.js';
import { agentCommand, cleanEnv, useScratch } from '../support/processes.js';
import { recordRun } from './record-run.js';

useOwnTmpdir();
const s = useScratch();

const usageAgent = () =>
  commandProvider({
    command: agentCommand('usage-file.mjs'),
    env: { FIXTURE_COMPLETE_AT: '2', FIXTURE_PID_LOG: s.pidLog },
    baseEnv: cleanEnv(),
  });

describe('what each round used is recorded, and the run model and its report show it', () => {
  it('each round its usage, the run its total; the report page gets a usage column and a total', async () => {
    const run = await recordRun(s, { provider: usageAgent() });
    const model = buildRunModel(run.text);
    const round = { costUsd: 0.25, inputTokens: 1000, outputTokens: 200, turns: 3 };
    expect(model.rounds.map((r) => r.usage)).toEqual([round, round]);
    expect(model.usage).toEqual({ costUsd: 0.5, inputTokens: 2000, outputTokens: 400, turns: 6 });

    const { head, rounds } = renderRunRegions(model);
    expect(head).toContain('<dt>Used in all</dt><dd>$0.50 · 2,000 in / 400 out tokens · 6 turns</dd>');
    expect(rounds).toContain('<span>duration</span><span>used</span><span>outcome</span>');
    expect(rounds.match(/<span class="used" [^>]*>\$0\.25<\/span>/g)).toHaveLength(2);
  });

  it('a recording made before usage was recorded reads as a run whose agents said nothing, and its page keeps its columns', async () => {
    const run = await recordRun(s, { provider: usageAgent() });
    // What an older recording holds: contexts without the usage fields, and the bare report as runRound's output.
    const old = run.lines
      .map((line) => {
        const parsed = JSON.parse(line) as {
          snapshot?: { context?: Record<string, unknown> };
          event?: { type: string; output?: { output?: unknown } };
        };
        delete parsed.snapshot?.context?.roundUsage;
        delete parsed.snapshot?.context?.usage;
        if (parsed.event?.type === 'xstate.done.actor.runRound' && parsed.event.output !== undefined)
          parsed.event.output = parsed.event.output.output as { output?: unknown };
        return `${JSON.stringify(parsed)}\n`;
      })
      .join('');
    const model = buildRunModel(old);
    expect(model.usage).toBeNull();
    expect(model.rounds.map((r) => r.usage)).toEqual([null, null]);
    const { head, rounds } = renderRunRegions(model);
    expect(head).not.toContain('Used in all');
    expect(rounds).toContain('<span>duration</span><span>outcome</span>');
  });
});
