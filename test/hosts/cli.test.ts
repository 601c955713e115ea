import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  budgetLimitedLabel,
  DEFAULT_DEPTH_LIMIT,
  LAST_SUCCESSFUL_HANDOFF,
  MAX_ROUNDS_INVALID,
  maxRoundsExceedsCeiling,
  NO_PREVIOUS_HANDOFF,
  OBJECTIVE_EMPTY,
  RALPH_DEPTH_ENV,
  ralphDepthLimitReached,
  roundChildFailed,
} from '../../src/index.js';
import {
  makeWorkspace,
  PLAN_AGENT_COMMAND,
  type PlanStep,
  ralph,
  spawnRalph,
  type Workspace,
} from '../fixtures/cli-agents/harness.js';

const workspaces: Workspace[] = [];

afterEach(async () => {
  await Promise.all(workspaces.splice(0).map((workspace) => workspace.cleanup()));
});

async function workspace(plan: PlanStep[]): Promise<Workspace> {
  const made = await makeWorkspace(plan);
  workspaces.push(made);
  return made;
}

/** `ralph run <objective> --agent-command <plan agent> --cwd <workspace> ...extra`. */
const run = (dir: string, objective: string, ...extra: string[]) =>
  ralph(['run', objective, '--agent-command', PLAN_AGENT_COMMAND, '--cwd', dir, ...extra]);

describe('ralph run: every way a run ends has its exit code', () => {
  it('exits 0 when a round reports complete, printing the native result on stdout and a line per round on stderr', async () => {
    const ws = await workspace(['continue', 'continue', 'complete']);
    const out = await run(ws.dir, 'Tick every box', '--max-rounds', '5');

    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(
      /^Ralph complete: the worker reported the objective complete after 3 rounds\./,
    );
    expect(out.stdout).toContain('"summary": "round 3 finished the work"');
    expect(out.stderr.split('\n').filter(Boolean)).toEqual([
      'ralph: round 1/5 started',
      'ralph: round 1/5 reported continue: round 1 made progress',
      'ralph: round 2/5 started',
      'ralph: round 2/5 reported continue: round 2 made progress',
      'ralph: round 3/5 started',
      'ralph: round 3/5 reported complete: round 3 finished the work',
    ]);
    // Each child got the fixed round prompt with the objective, and the second one the first one's handoff.
    expect(ws.promptOf(1)).toContain('Tick every box');
    expect(ws.promptOf(2)).toContain('round 1 made progress');
  });

  it('exits 3 when a round reports blocked', async () => {
    const ws = await workspace(['continue', 'blocked']);
    const out = await run(ws.dir, 'Ship it');

    expect(out.code).toBe(3);
    expect(out.stdout).toMatch(/^Ralph blocked: the worker reported a blocker after 2 rounds\./);
    expect(out.stdout).toContain('the API key is missing');
  });

  it('exits 4 when the round cap is reached with work remaining', async () => {
    const ws = await workspace(['continue']);
    const out = await run(ws.dir, 'Never done', '--max-rounds', '2');

    expect(out.code).toBe(4);
    expect(out.stdout.split('\n')[0]).toBe(budgetLimitedLabel(2));
    expect(ws.pidOf(3)).toBeUndefined();
  });

  it('exits 1 when a child fails, printing the seed message with the last handoff, then the detail', async () => {
    const ws = await workspace(['continue', 'fail']);
    const out = await run(ws.dir, 'Crash in round two');

    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(`${roundChildFailed(2)}\n${LAST_SUCCESSFUL_HANDOFF}`);
    expect(out.stderr).toContain('round 1 made progress');
    expect(out.stderr).toContain('round 2 crashed on purpose');
  });

  it('exits 1 when the first child fails, saying no handoff was available', async () => {
    const ws = await workspace(['fail']);
    const out = await run(ws.dir, 'Crash at once');

    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`${roundChildFailed(1)}\n${NO_PREVIOUS_HANDOFF}`);
  });

  it('exits 1 when a child exits cleanly without a report: the workflow failed', async () => {
    const ws = await workspace(['no-report']);
    const out = await run(ws.dir, 'Say nothing');

    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(
      /^Ralph workflow failed: round 1 child finished without a structured report$/m,
    );
  });
});

describe('ralph run with a reader that went away', () => {
  it('still ends with the exit code of the run when stdout is closed (`ralph run … | head`)', async () => {
    const ws = await workspace(['complete']);
    const spawned = spawnRalph([
      'run',
      'Done at once',
      '--agent-command',
      PLAN_AGENT_COMMAND,
      '--cwd',
      ws.dir,
    ]);
    spawned.child.stdout?.destroy();
    const out = await spawned.finished;

    expect(out.code).toBe(0);
    expect(out.stderr).not.toContain('EPIPE');
    expect(out.stderr).toContain('round 1/256 reported complete');
  });
});

describe('ralph run --json', () => {
  it('prints the envelope on stdout', async () => {
    const ws = await workspace(['continue', 'complete']);
    const out = await run(ws.dir, 'Two rounds', '--json');

    expect(out.code).toBe(0);
    const envelope = JSON.parse(out.stdout);
    expect(envelope).toEqual({
      runId: expect.any(String),
      agentsStarted: 2,
      result: {
        status: 'complete',
        rounds: 2,
        report: {
          status: 'complete',
          summary: 'round 2 finished the work',
          evidence: ['all checks pass'],
          nextSteps: [],
          blocker: null,
        },
      },
    });
  });

  it('prints a failure as { error } on stdout too, with its code, round and last handoff', async () => {
    const ws = await workspace(['continue', 'fail']);
    const out = await run(ws.dir, 'Crash', '--json');

    expect(out.code).toBe(1);
    const { error } = JSON.parse(out.stdout);
    expect(error).toMatchObject({ code: 'child-failed', round: 2, lastHandoff: { status: 'continue' } });
    expect(error.message).toMatch(new RegExp(`^${roundChildFailed(2).replace(/\./g, '\\.')}`));
  });
});

describe('ralph run refuses bad arguments with exit 2 and starts nothing', () => {
  const refusals: [string, (dir: string) => string[], string][] = [
    [
      'an empty objective',
      (dir) => ['run', '', '--agent-command', PLAN_AGENT_COMMAND, '--cwd', dir],
      OBJECTIVE_EMPTY,
    ],
    [
      'a blank objective',
      (dir) => ['run', '  \n ', '--agent-command', PLAN_AGENT_COMMAND, '--cwd', dir],
      OBJECTIVE_EMPTY,
    ],
    ['no objective', (dir) => ['run', '--agent-command', PLAN_AGENT_COMMAND, '--cwd', dir], OBJECTIVE_EMPTY],
    [
      '--max-rounds 0',
      (dir) => ['run', 'x', '--max-rounds', '0', '--agent-command', PLAN_AGENT_COMMAND, '--cwd', dir],
      MAX_ROUNDS_INVALID,
    ],
    [
      '--max-rounds 1.5',
      (dir) => ['run', 'x', '--max-rounds', '1.5', '--agent-command', PLAN_AGENT_COMMAND, '--cwd', dir],
      MAX_ROUNDS_INVALID,
    ],
    [
      '--max-rounds ten',
      (dir) => ['run', 'x', '--max-rounds', 'ten', '--agent-command', PLAN_AGENT_COMMAND, '--cwd', dir],
      MAX_ROUNDS_INVALID,
    ],
    [
      '--max-rounds 257',
      (dir) => ['run', 'x', '--max-rounds', '257', '--agent-command', PLAN_AGENT_COMMAND, '--cwd', dir],
      maxRoundsExceedsCeiling(257, 256),
    ],
    [
      'neither --agent nor --agent-command',
      (dir) => ['run', 'x', '--cwd', dir],
      '--agent claude|codex|example or --agent-command',
    ],
    [
      'both --agent and --agent-command',
      (dir) => ['run', 'x', '--agent', 'example', '--agent-command', PLAN_AGENT_COMMAND, '--cwd', dir],
      'either --agent or --agent-command, not both',
    ],
    [
      'a --cwd that is not a folder',
      (dir) => ['run', 'x', '--agent-command', PLAN_AGENT_COMMAND, '--cwd', `${dir}/missing`],
      'is not a directory',
    ],
    [
      'a negative --grace-ms',
      (dir) => ['run', 'x', '--grace-ms', '-1', '--agent-command', PLAN_AGENT_COMMAND, '--cwd', dir],
      'Ralph config is invalid: terminationGraceMs',
    ],
    [
      'a --record file in a folder that does not exist',
      (dir) => [
        'run',
        'x',
        '--record',
        `${dir}/missing/run.jsonl`,
        '--agent-command',
        PLAN_AGENT_COMMAND,
        '--cwd',
        dir,
      ],
      'cannot create the recording (ENOENT',
    ],
  ];

  it.each(refusals)('refuses %s', async (_, argsFor, message) => {
    const ws = await workspace(['complete']);
    const out = await ralph(argsFor(ws.dir));

    expect(out.code).toBe(2);
    expect(out.stderr).toContain(message);
    expect(out.stdout).toBe('');
    expect(ws.noAgentStarted()).toBe(true);
  });

  it('refuses to run inside Ralph loops nested as deep as the limit', async () => {
    const ws = await workspace(['complete']);
    const out = await ralph(['run', 'x', '--agent-command', PLAN_AGENT_COMMAND, '--cwd', ws.dir], {
      env: { ...process.env, [RALPH_DEPTH_ENV]: String(DEFAULT_DEPTH_LIMIT) },
    });

    expect(out.code).toBe(2);
    expect(out.stderr).toBe(`${ralphDepthLimitReached(DEFAULT_DEPTH_LIMIT, DEFAULT_DEPTH_LIMIT)}\n`);
    expect(ws.noAgentStarted()).toBe(true);
  });

  it('answers with exactly the seed message, then one line naming the flag and its range, nothing more', async () => {
    const ws = await workspace(['complete']);
    const out = await run(ws.dir, 'x', '--max-rounds', '0');

    expect(out.stderr).toBe(
      `${MAX_ROUNDS_INVALID}\nralph: --max-rounds takes a whole number from 1 to 256 (got "0")\n`,
    );
  });

  it('refuses an unknown preset and an unknown option as usage errors', async () => {
    const preset = await ralph(['run', 'x', '--agent', 'gpt']);
    const option = await ralph(['run', 'x', '--agent', 'example', '--rounds', '3']);

    expect(preset.code).toBe(2);
    expect(preset.stderr).toContain(
      'Allowed choices are claude, codex, qwen, gemini, opencode, copilot, droid, example',
    );
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("unknown option '--rounds'");
  });

  it('prints a refusal as { error } under --json', async () => {
    const out = await ralph(['run', 'x', '--json']);

    expect(out.code).toBe(2);
    expect(JSON.parse(out.stdout).error).toMatchObject({ code: 'refused' });
  });
});

describe('ralph --help', () => {
  it('shows the run options, examples and exit codes, and exits 0', async () => {
    const out = await ralph(['run', '--help']);

    expect(out.code).toBe(0);
    for (const text of [
      '--max-rounds',
      '--agent-command',
      '--json',
      '--cwd',
      'Examples:',
      '130  cancelled',
    ]) {
      expect(out.stdout).toContain(text);
    }
  });

  it('lists the commands', async () => {
    const out = await ralph(['--help']);

    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/run \[options\] \[objective\]/);
    expect(out.stdout).toContain('mcp [options]');
  });

  it('prints the package version', async () => {
    const out = await ralph(['--version']);

    expect(out.code).toBe(0);
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(out.stdout).toBe(`${version}\n`);
  });

  it('treats a bare `ralph` as a usage error: help on stderr, exit 2', async () => {
    const out = await ralph([]);

    expect(out.code).toBe(2);
    expect(out.stderr).toContain('Usage: ralph');
  });
});
