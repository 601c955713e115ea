import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import {
  makeWorkspace,
  PLAN_AGENT_COMMAND,
  ralph,
  spawnRalph,
  type Workspace,
  waitUntil,
} from '../fixtures/cli-agents/harness.js';

const FAKE_CLAUDE = fileURLToPath(new URL('../fixtures/bin/claude', import.meta.url));
const USAGE_AGENT = quote([
  process.execPath,
  fileURLToPath(new URL('../fixtures/agents/usage-file.mjs', import.meta.url)),
]);
const CONTINUE = JSON.stringify({
  status: 'continue',
  summary: 'one more step',
  evidence: [],
  nextSteps: ['the next step'],
  blocker: null,
});

/** `ralph run <objective>` over the fake Claude Code in `dir`, with `more` options. */
const claudeRun = (objective: string, dir: string, ...more: string[]): string[] => [
  'run',
  objective,
  '--agent',
  'claude',
  '--claude-path',
  FAKE_CLAUDE,
  '--cwd',
  dir,
  ...more,
];

const workspaces: Workspace[] = [];
afterEach(async () => {
  await Promise.all(workspaces.splice(0).map((workspace) => workspace.cleanup()));
});
const workspace = async () => {
  const ws = await makeWorkspace(['continue', 'continue', 'continue', 'continue']);
  workspaces.push(ws);
  return ws;
};

describe('ralph run shows what each round of Claude Code cost, and stops at --max-cost', () => {
  it('no round starts once the reported cost reached the limit: budget-limited (exit 4), naming the limit and what was spent', async () => {
    const ws = await workspace();
    const { code, stdout, stderr } = await ralph(
      [
        'run',
        'Keep going',
        '--agent',
        'claude',
        '--claude-path',
        FAKE_CLAUDE,
        '--cwd',
        ws.dir,
        '--max-cost',
        '0.05',
      ],
      { env: { ...process.env, FAKE_CLAUDE_COST: '0.03', FAKE_REPORT: CONTINUE, RALPH_DEPTH: '' } },
    );
    expect(code).toBe(4);
    expect(stdout.split('\n')[0]).toBe(
      'Ralph reached its $0.05 cost limit ($0.06 spent); the worker reported work remaining.',
    );
    expect(stdout).toContain('Rounds: 2\n');
    const lines = stderr.split('\n');
    expect(lines).toContain(
      'ralph: round 1/256 reported continue: one more step [$0.03 · 1,500 in / 300 out tokens · 2 turns; run total $0.03 · 1,500 in / 300 out tokens · 2 turns]',
    );
    expect(lines).toContain(
      'ralph: round 2/256 reported continue: one more step [$0.03 · 1,500 in / 300 out tokens · 2 turns; run total $0.06 · 3,000 in / 600 out tokens · 4 turns]',
    );
    expect(lines).toContain('ralph: used in all: $0.06 · 3,000 in / 600 out tokens · 4 turns');
    expect(lines.filter((line) => line.includes('started')).length).toBe(2);
  });

  it('--json keeps the envelope, the cost limit and what was spent in its limit', async () => {
    const ws = await workspace();
    const { code, stdout } = await ralph(
      [
        'run',
        'Keep going',
        '--agent',
        'claude',
        '--claude-path',
        FAKE_CLAUDE,
        '--cwd',
        ws.dir,
        '--max-cost',
        '$0.03',
        '--json',
      ],
      { env: { ...process.env, FAKE_CLAUDE_COST: '0.03', FAKE_REPORT: CONTINUE, RALPH_DEPTH: '' } },
    );
    expect(code).toBe(4);
    const envelope = JSON.parse(stdout) as { result: Record<string, unknown> };
    expect(envelope.result.rounds).toBe(1);
    expect(envelope.result.limit).toEqual({ kind: 'cost', maxCostUsd: 0.03, spentUsd: 0.03 });
  });
});

describe('a cost limit that could not hold is refused before anything starts (exit 2)', () => {
  it('an agent command that is not declared to report cost', async () => {
    const ws = await workspace();
    const { code, stdout, stderr } = await ralph([
      'run',
      'Keep going',
      '--agent-command',
      PLAN_AGENT_COMMAND,
      '--cwd',
      ws.dir,
      '--max-cost',
      '5',
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      'Ralph cannot hold the $5.00 cost limit: subagent provider "command" does not report what its rounds cost, so the budget would never stop the run.',
    );
    expect(ws.noAgentStarted()).toBe(true);
  });

  it.each([['0'], ['-1'], ['five'], ['1e3']])('--max-cost %s', async (value) => {
    const ws = await workspace();
    const { code, stderr } = await ralph([
      'run',
      'x',
      '--agent-command',
      PLAN_AGENT_COMMAND,
      '--cwd',
      ws.dir,
      '--max-cost',
      value,
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `--max-cost must be a positive amount of US dollars, e.g. 5 or 2.50 (got "${value}")`,
    );
    expect(ws.noAgentStarted()).toBe(true);
  });
});

describe('an agent command declared with --agent-reports-cost is held to --max-cost by its usage file', () => {
  it('each round writes $0.25: a $0.60 limit stops the run after round 3', async () => {
    const ws = await workspace();
    const { code, stdout } = await ralph(
      [
        'run',
        'Keep going',
        '--agent-command',
        USAGE_AGENT,
        '--agent-reports-cost',
        '--cwd',
        ws.dir,
        '--max-cost',
        '0.6',
      ],
      { env: { ...process.env, FIXTURE_COMPLETE_AT: '99', RALPH_DEPTH: '' } },
    );
    expect(code).toBe(4);
    expect(stdout.split('\n')[0]).toBe(
      'Ralph reached its $0.60 cost limit ($0.75 spent); the worker reported work remaining.',
    );
  });
});

describe('--wait-on-limits waits out a usage limit, then runs the round again with a fresh agent', () => {
  it('round 1 hits the limit; after its reset round 1 runs again and completes, costing no round of the cap', async () => {
    const ws = await workspace();
    const { code, stdout, stderr } = await ralph(
      [
        'run',
        'Finish',
        '--agent',
        'claude',
        '--claude-path',
        FAKE_CLAUDE,
        '--cwd',
        ws.dir,
        '--max-rounds',
        '1',
        '--wait-on-limits',
      ],
      { env: { ...process.env, FAKE_CLAUDE_MODE: 'usage-limit-once', FAKE_RESETS_IN: '1', RALPH_DEPTH: '' } },
    );
    expect(code, stderr).toBe(0);
    expect(stdout.split('\n')[0]).toContain(
      'Ralph complete: the worker reported the objective complete after 1 round.',
    );
    const lines = stderr.split('\n');
    expect(lines.filter((line) => line === 'ralph: round 1/1 started')).toHaveLength(2);
    expect(lines.find((line) => line.includes('hit a usage limit'))).toMatch(
      /^ralph: round 1\/1 hit a usage limit; waiting \ds( \d+ms)? for it to reset \(--wait-on-limits\), then running the round again with a fresh agent$/,
    );
  });

  it('without it the same limit fails the run, its detail naming the limit and when it resets', async () => {
    const ws = await workspace();
    const { code, stderr } = await ralph(
      ['run', 'Finish', '--agent', 'claude', '--claude-path', FAKE_CLAUDE, '--cwd', ws.dir],
      {
        env: { ...process.env, FAKE_CLAUDE_MODE: 'usage-limit-once', FAKE_RESETS_IN: '60', RALPH_DEPTH: '' },
      },
    );
    expect(code).toBe(1);
    expect(stderr).toContain('Ralph round 1 child failed before producing a structured report.');
    expect(stderr).toMatch(
      /claude hit a usage or rate limit: Claude AI usage limit reached\|\d+; it resets at \S+Z \(in /,
    );
  });

  it('Ctrl-C ends the wait at once: cancelled (exit 130), no round run again', async () => {
    const ws = await workspace();
    const run = spawnRalph(
      [
        'run',
        'Finish',
        '--agent',
        'claude',
        '--claude-path',
        FAKE_CLAUDE,
        '--cwd',
        ws.dir,
        '--wait-on-limits',
      ],
      {
        env: {
          ...process.env,
          FAKE_CLAUDE_MODE: 'usage-limit-once',
          FAKE_RESETS_IN: '3600',
          RALPH_DEPTH: '',
        },
      },
    );
    await waitUntil(() => run.stderrSoFar().includes('hit a usage limit; waiting 1h'), 'the run to wait');
    run.child.kill('SIGINT');
    const out = await run.finished;
    expect(out.code).toBe(130);
    expect(out.stderr).toContain('Ralph workflow was cancelled');
    expect(out.stderr.split('\n').filter((line) => line === 'ralph: round 1/256 started')).toHaveLength(1);
  });
});

describe('what a round cost counts toward --max-cost though no report of it was accepted', () => {
  it("a usage-limit round that --wait-on-limits runs again: its $0.03 and the rerun's $0.03 reach a $0.05 limit after round 1", async () => {
    const ws = await workspace();
    const { code, stdout, stderr } = await ralph(
      claudeRun(
        'Keep going',
        ws.dir,
        '--max-rounds',
        '3',
        '--wait-on-limits',
        '--max-cost',
        '0.05',
        '--json',
      ),
      {
        env: {
          ...process.env,
          FAKE_CLAUDE_MODE: 'usage-limit-once',
          FAKE_RESETS_IN: '1',
          FAKE_CLAUDE_COST: '0.03',
          FAKE_REPORT: CONTINUE,
          RALPH_DEPTH: '',
        },
      },
    );
    expect(code, stderr).toBe(4);
    const envelope = JSON.parse(stdout) as { result: Record<string, unknown> };
    expect(envelope.result.rounds).toBe(1);
    expect(envelope.result.limit).toEqual({ kind: 'cost', maxCostUsd: 0.05, spentUsd: 0.06 });
    expect(stderr.split('\n')).toContain('ralph: used in all: $0.06 · 3,000 in / 600 out tokens · 4 turns');
  });

  it('a round whose Claude Code result is an error: the run fails, and its recording and replay count that round', async () => {
    const ws = await workspace();
    const file = join(ws.dir, 'run.jsonl');
    const env = {
      ...process.env,
      FAKE_CLAUDE_MODE: 'error-result',
      FAKE_CLAUDE_COST: '0.03',
      RALPH_DEPTH: '',
    };
    const run = await ralph(claudeRun('Fail', ws.dir, '--record', file), { env });
    expect(run.code).toBe(1);
    const snapshots = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; snapshot?: { context?: { usage?: unknown } } })
      .filter((line) => line.type === '@xstate.snapshot' && line.snapshot?.context !== undefined);
    expect(snapshots.at(-1)?.snapshot?.context?.usage).toMatchObject({ costUsd: 0.03, turns: 2 });
    const replay = await ralph(['replay', file], { env });
    expect(replay.code, replay.stderr).toBe(1);
    expect(replay.stderr).toContain('Ralph round 1 child failed before producing a structured report.');
  });
});
