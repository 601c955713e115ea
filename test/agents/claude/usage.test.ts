import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { costText } from '../../../src/contract/usage.js';
import { spawnRalph } from '../../fixtures/cli-agents/harness.js';
import {
  hasTool,
  isFirstTurn,
  type MessagesRequest,
  messageText,
  startAnthropicServer,
  type Turn,
} from '../support/anthropic-server.js';
import { assertInstalled, claudeHome, claudePath } from '../support/claude-env.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
beforeAll(assertInstalled);

const inRound = (round: number) => (request: MessagesRequest) =>
  hasTool(request, 'StructuredOutput') &&
  messageText(request.messages[0]).includes(`running round ${round} of at most`);

const continueReport = (round: number) => ({
  status: 'continue',
  summary: `ROUND-${round}: one more step`,
  evidence: [],
  nextSteps: ['the next step'],
  blocker: null,
});

/** Every round answers at once with a continue report: the loop would go on for ever without a limit. */
function endless(rounds: number): Turn[] {
  return Array.from({ length: rounds }, (_, index) => ({
    when: (request: MessagesRequest) => inRound(index + 1)(request) && isFirstTurn(request),
    reply: { toolUse: { name: 'StructuredOutput', input: continueReport(index + 1) } },
  }));
}

async function setUp(turns: Turn[]) {
  const workspace = await mkdtemp(join(tmpdir(), 'ralph-claude-ws-'));
  cleanups.push(() => rm(workspace, { recursive: true, force: true }));
  const server = await startAnthropicServer(turns);
  cleanups.push(() => server.close());
  const home = await claudeHome(server.url);
  cleanups.push(() => home.cleanup());
  return { server, home, workspace };
}

describe('ralph run --agent claude shows what each round of the real Claude Code cost, and stops at --max-cost', () => {
  it('per-round and total cost and tokens are what claude made of the server’s usage; --max-cost stops the loop', async () => {
    const { home, workspace } = await setUp(endless(3));
    const { finished } = spawnRalph(
      [
        'run',
        'Keep going',
        '--agent',
        'claude',
        '--claude-path',
        claudePath,
        '--cwd',
        workspace,
        '--max-rounds',
        '3',
        // Less than any round costs: the run stops after round 1, however claude prices the model.
        '--max-cost',
        '0.000001',
        '--json',
      ],
      { env: home.env },
    );
    const out = await finished;
    expect(out.code, out.stderr).toBe(4);
    const envelope = JSON.parse(out.stdout) as {
      result: { rounds: number; limit: { kind: string; maxCostUsd: number; spentUsd: number } };
    };
    expect(envelope.result.rounds).toBe(1);
    const { limit } = envelope.result;
    expect(limit).toMatchObject({ kind: 'cost', maxCostUsd: 0.000001 });
    expect(limit.spentUsd).toBeGreaterThan(0);
    // The scripted server reports 10 input and 5 output tokens for its one answer of the round.
    const round = `${costText(limit.spentUsd)} · 10 in / 5 out tokens`;
    const lines = out.stderr.split('\n');
    expect(lines.find((line) => line.startsWith('ralph: round 1/3 reported continue'))).toMatch(
      new RegExp(`\\[${literally(round)} · \\d+ turns?; run total ${literally(round)} · \\d+ turns?\\]$`),
    );
    expect(lines.some((line) => line.startsWith('ralph: round 2/3 started'))).toBe(false);
    expect(lines).toContain(`ralph: used in all: ${round} · 2 turns`);
  });
});

describe('a round of the real Claude Code refused with HTTP 429 is recognised as a rate limit', () => {
  // No retries inside claude (its default backs off for minutes): the limit reaches ralph at once.
  const limited = [
    {
      when: () => true,
      repeat: true,
      reply: {
        status: 429,
        message: "This request would exceed your account's rate limit. Please try again later.",
      },
    },
  ];
  const run = (home: { env: NodeJS.ProcessEnv }, workspace: string, ...extra: string[]) =>
    spawnRalph(
      ['run', 'Keep going', '--agent', 'claude', '--claude-path', claudePath, '--cwd', workspace, ...extra],
      {
        env: { ...home.env, CLAUDE_CODE_MAX_RETRIES: '0' },
      },
    ).finished;

  it("without --wait-on-limits: the reference's child failure, its detail naming the limit", async () => {
    const { home, workspace } = await setUp(limited);
    const out = await run(home, workspace);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('Ralph round 1 child failed before producing a structured report.');
    expect(out.stderr).toContain(
      "claude hit a usage or rate limit: API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later.; it gave no reset time",
    );
  });

  it('with --wait-on-limits the run waits (no reset time: the backoff), but never past --max-time', async () => {
    const { home, workspace } = await setUp(limited);
    const out = await run(home, workspace, '--wait-on-limits', '--max-time', '2s');
    expect(out.stderr).toContain(
      'ralph: round 1/256 hit a usage limit; waiting 1m for it to reset (--wait-on-limits), then running the round again with a fresh agent',
    );
    expect(out.stderr).toContain('the 2s time limit (--max-time) ran out');
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      'Ralph workflow failed: the 2s time limit ran out while round 1 waited for a usage limit to reset, before any round had reported',
    );
  });
});

describe('--wait-on-limits waits out a usage limit of the real Claude Code, then runs the round again', () => {
  it('a 429 that says when to try again: the round waits that long, runs again with a fresh claude, and the loop completes', async () => {
    const completeReport = {
      status: 'complete',
      summary: 'ROUND-1: done after the limit reset',
      evidence: ['the second claude answered'],
      nextSteps: [],
      blocker: null,
    };
    const { home, workspace, server } = await setUp([
      // The first request of the run is refused; every later one is answered.
      {
        when: () => true,
        reply: { status: 429, message: 'You have hit your usage limit. Please try again in 2 seconds.' },
      },
      {
        when: (request: MessagesRequest) => inRound(1)(request) && isFirstTurn(request),
        reply: { toolUse: { name: 'StructuredOutput', input: completeReport } },
      },
    ]);
    const out = await spawnRalph(
      [
        'run',
        'Finish it',
        '--agent',
        'claude',
        '--claude-path',
        claudePath,
        '--cwd',
        workspace,
        '--max-rounds',
        '2',
        '--wait-on-limits',
        '--json',
      ],
      { env: { ...home.env, CLAUDE_CODE_MAX_RETRIES: '0' } },
    ).finished;
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toMatch(/ralph: round 1\/2 hit a usage limit; waiting \d+s? ?\d*m?s? for it to reset/);
    const envelope = JSON.parse(out.stdout) as {
      agentsStarted: number;
      result: { status: string; rounds: number };
    };
    // The wait cost no round of the cap: round 1 ran twice, with two children, and the run is still at round 1.
    expect(envelope.result).toMatchObject({ status: 'complete', rounds: 1 });
    expect(envelope.agentsStarted).toBe(2);
    expect(server.pendingTurns()).toBe(0);
  });
});

const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\$]/g, '\\$&');
