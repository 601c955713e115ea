import { describe, expect, it } from 'vitest';
import {
  claudeProvider,
  codexProvider,
  commandProvider,
  createProviderRegistry,
  createRalphTool,
  type RalphProgressEvent,
  type RalphUsage,
  type SubagentProvider,
} from '../../src/index.js';
import { agentCommand, binDir, cleanEnv, useScratch } from '../support/processes.js';

const s = useScratch();

/** What one round of the fake Claude Code says it used, at FAKE_CLAUDE_COST 0.0375. */
const CLAUDE_ROUND_USAGE: RalphUsage = {
  costUsd: 0.0375,
  inputTokens: 1500,
  outputTokens: 300,
  cacheReadTokens: 700,
  cacheWriteTokens: 50,
  turns: 2,
  durationMs: 12,
};

/** Runs a loop over `provider` and returns its accepted reports' progress and the run's total usage. */
async function runOver(provider: SubagentProvider, args: { objective: string; maxRounds?: number }) {
  const providers = createProviderRegistry();
  providers.register(provider);
  const tool = createRalphTool({ subagentProvider: provider.name }, { providers });
  const accepted: Extract<RalphProgressEvent, { type: 'report-accepted' }>[] = [];
  let total: RalphUsage | undefined;
  const envelope = await tool.execute(args, {
    agent: { id: 'parent', cwd: s.workspace },
    onProgress: (event) => {
      if (event.type === 'report-accepted') accepted.push(event);
    },
    onUsage: (used) => {
      total = used;
    },
  });
  return { envelope, accepted, total };
}

describe('a command agent may say what a round used in RALPH_USAGE_FILE', () => {
  it("each round's usage and the run total so far come with its accepted report, and the total once it is over", async () => {
    const provider = commandProvider({
      command: agentCommand('usage-file.mjs'),
      env: { FIXTURE_COMPLETE_AT: '3', FIXTURE_PID_LOG: s.pidLog },
      baseEnv: cleanEnv(),
    });
    const { envelope, accepted, total } = await runOver(provider, {
      objective: 'Count to three',
      maxRounds: 3,
    });
    const round: RalphUsage = { costUsd: 0.25, inputTokens: 1000, outputTokens: 200, turns: 3 };
    expect(accepted.map((event) => event.usage)).toEqual([round, round, round]);
    expect(accepted.map((event) => event.totalUsage?.costUsd)).toEqual([0.25, 0.5, 0.75]);
    expect(total).toEqual({ costUsd: 0.75, inputTokens: 3000, outputTokens: 600, turns: 9 });
    // The envelope is the reference's: what the run used travels beside it.
    expect(Object.keys(envelope)).toEqual(['runId', 'agentsStarted', 'result']);
    expect(Object.keys(envelope.result)).toEqual(['status', 'rounds', 'report']);
  });

  it('an agent that writes no usage file, or one that is not JSON, gets the reference progress and no total', async () => {
    for (const usage of ['none', 'not json {']) {
      const provider = commandProvider({
        command: agentCommand('usage-file.mjs'),
        env: { FIXTURE_USAGE: usage, FIXTURE_PID_LOG: s.pidLog },
        baseEnv: cleanEnv(),
      });
      const { accepted, total } = await runOver(provider, { objective: 'Say nothing of usage' });
      expect(Object.keys(accepted[0] ?? {})).toEqual(['type', 'runId', 'round', 'maxRounds', 'report']);
      expect(total).toBeUndefined();
    }
  });

  it('declares no cost reports unless it is told its agents report cost', () => {
    const plain = commandProvider({ command: agentCommand('usage-file.mjs') });
    const costed = commandProvider({ command: agentCommand('usage-file.mjs'), reportsCost: true });
    expect(plain.capabilities.reportsCost).toBeUndefined();
    expect(costed.capabilities.reportsCost).toBe(true);
  });
});

describe("the claude preset reads each round's usage off Claude Code's JSON result", () => {
  it('its cost, tokens, cache tokens, turns and duration', async () => {
    const provider = claudeProvider({
      path: `${binDir}claude`,
      env: { FAKE_CLAUDE_COST: '0.0375', FIXTURE_PID_LOG: s.pidLog },
      baseEnv: cleanEnv(),
    });
    expect(provider.capabilities.reportsCost).toBe(true);
    const { accepted, total } = await runOver(provider, { objective: 'Finish at once' });
    const round = CLAUDE_ROUND_USAGE;
    expect(accepted.map((event) => event.usage)).toEqual([round]);
    expect(total).toEqual(round);
  });
});

describe('a round that ends without an accepted report counts what its agent said it cost', () => {
  it.each([
    ['an error result (exit 1)', 'error-result'],
    ['an error result with exit 0', 'error-exit-0'],
    ['a usage limit', 'usage-limit'],
  ])(
    "Claude Code's %s carries total_cost_usd: the run fails, and its total holds that round",
    async (_, mode) => {
      const provider = claudeProvider({
        path: `${binDir}claude`,
        env: { FAKE_CLAUDE_COST: '0.0375', FAKE_CLAUDE_MODE: mode, FIXTURE_PID_LOG: s.pidLog },
        baseEnv: cleanEnv(),
      });
      const providers = createProviderRegistry();
      providers.register(provider);
      const tool = createRalphTool({ subagentProvider: 'claude' }, { providers });
      let total: RalphUsage | undefined;
      const failure = await tool
        .execute(
          { objective: 'Fail at once' },
          { agent: { id: 'parent', cwd: s.workspace }, onUsage: (used) => (total = used) },
        )
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(failure).toMatchObject({
        code: 'child-failed',
        round: 1,
      });
      expect(total).toEqual(CLAUDE_ROUND_USAGE);
    },
  );
});

describe("the codex preset reads each round's usage off codex's --json event stream", () => {
  it("each turn.completed's tokens, summed, and the turns counted; no cost, so it declares none", async () => {
    const provider = codexProvider({
      path: `${binDir}codex`,
      env: { FIXTURE_PID_LOG: s.pidLog },
      baseEnv: cleanEnv(),
    });
    expect(provider.capabilities.reportsCost).toBeUndefined();
    const { envelope, accepted, total } = await runOver(provider, { objective: 'Finish at once' });
    // The report still comes from the -o file.
    expect(envelope.result.report.summary).toBe('fake codex finished');
    const round: RalphUsage = {
      inputTokens: 1200,
      outputTokens: 90,
      cacheReadTokens: 800,
      cacheWriteTokens: 0,
      turns: 1,
    };
    expect(accepted.map((event) => event.usage)).toEqual([round]);
    expect(total).toEqual(round);
  });

  it('without the -o file, the report is the final message on the event stream, not its last event', async () => {
    const { readCodexUsage, codexReportReader } = await import('../../src/providers/codex.js');
    const stdout = [
      '{"type":"thread.started","thread_id":"t"}',
      '{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"{\\"status\\":\\"blocked\\"}"}}',
      '{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":10}}',
      '{"type":"turn.completed","usage":{"input_tokens":5,"output_tokens":1}}',
    ].join('\n');
    const outputs = { reportFile: `${s.logs}/no-such-report.json`, stdout, stderr: '', exitCode: 0 };
    expect(await codexReportReader()(outputs)).toEqual({ status: 'blocked' });
    expect(await readCodexUsage(outputs)).toEqual({
      inputTokens: 15,
      outputTokens: 11,
      cacheReadTokens: 0,
      turns: 2,
    });
  });
});
