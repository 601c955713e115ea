import { chmod, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ROUNDS_INVALID, OBJECTIVE_EMPTY } from '../../src/index.js';
import {
  CLI,
  makeWorkspace,
  PLAN_AGENT_COMMAND,
  type PlanStep,
  ralph,
  type Workspace,
} from '../fixtures/cli-agents/harness.js';
import { docBlock } from '../support/doc-block.js';

// Issue 20, the first hour: wherever a newcomer stopped and had to guess, the CLI now says what to do next. The
// reference's texts stay word for word on the first line; the CLI's second line names the flag and the fix.

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function workspace(plan: PlanStep[]): Promise<Workspace> {
  const made = await makeWorkspace(plan);
  cleanups.push(made.cleanup);
  return made;
}

/** A folder for a PATH that holds no agent program (the CLI itself is started with this Node's full path). */
async function emptyFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-empty-path-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const run = (dir: string, objective: string, ...extra: string[]) =>
  ralph(['run', objective, '--agent-command', PLAN_AGENT_COMMAND, '--cwd', dir, ...extra]);

describe('an agent that cannot be started is refused before round 1: exit 2, one line, no child', () => {
  it.each([
    ['ralph run', ['run', 'x']],
    ['ralph mcp, before it serves anything', ['mcp']],
  ])(
    '--agent claude with no claude on PATH: %s says to install it, put it on PATH, or pass --claude-path',
    async (_, command) => {
      const ws = await workspace(['complete']);
      const out = await ralph([...command, '--agent', 'claude', '--cwd', ws.dir], {
        env: { ...process.env, PATH: await emptyFolder() },
      });

      expect(out.code).toBe(2);
      expect(out.stderr).toBe(
        'ralph: the claude program was not found on PATH; install Claude Code, put it on PATH, or pass --claude-path <file>\n',
      );
      expect(out.stdout).toBe('');
    },
  );

  it("the call's own refusals speak first: --max-rounds 300 with no claude on PATH", async () => {
    const ws = await workspace(['complete']);
    const out = await ralph(['run', 'x', '--agent', 'claude', '--max-rounds', '300', '--cwd', ws.dir], {
      env: { ...process.env, PATH: await emptyFolder() },
    });

    expect(out.code).toBe(2);
    expect(out.stderr.split('\n')[0]).toBe('Ralph maxRounds 300 exceeds the deployment ceiling 256');
  });

  it('--agent codex --codex-path to a file that is not there names the path and the flag', async () => {
    const ws = await workspace(['complete']);
    const missing = join(ws.dir, 'bin', 'codex');
    const out = await ralph(['run', 'x', '--agent', 'codex', '--codex-path', missing, '--cwd', ws.dir]);

    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      `ralph: --codex-path ${missing} was not found (${missing}); pass --codex-path <the codex program>, or leave it out to use codex on PATH\n`,
    );
  });

  it('--agent qwen with no qwen on PATH says how to install it, or which flag names it; nothing starts', async () => {
    const ws = await workspace(['complete']);
    const out = await ralph(['run', 'x', '--agent', 'qwen', '--cwd', ws.dir], {
      env: { ...process.env, PATH: await emptyFolder() },
    });

    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      'ralph: the qwen program was not found on PATH; install Qwen Code (npm install -g @qwen-code/qwen-code), put it on PATH, or pass --qwen-path <file>\n',
    );
  });

  it('an --agent-command program that is not on PATH', async () => {
    const ws = await workspace(['complete']);
    const out = await ralph(['run', 'x', '--agent-command', 'no-such-agent --fast', '--cwd', ws.dir]);

    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      `ralph: the --agent-command program "no-such-agent" was not found on PATH; install it, put it on PATH, or give its path (e.g. --agent-command './no-such-agent')\n`,
    );
  });

  it('an --agent-command script without its run bit (EACCES) says chmod +x, or name its interpreter', async () => {
    const ws = await workspace(['complete']);
    await writeFile(join(ws.dir, 'agent.sh'), '#!/bin/sh\necho started > started.txt\n');
    const out = await ralph(['run', 'x', '--agent-command', './agent.sh', '--cwd', ws.dir]);

    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      `ralph: the --agent-command program "./agent.sh" cannot be run: ${join(ws.dir, 'agent.sh')} is not executable; chmod +x it, or name its interpreter first (e.g. --agent-command 'node ./agent.sh')\n`,
    );
    await expect(readFile(join(ws.dir, 'started.txt'))).rejects.toThrow('ENOENT');
  });

  it('a round whose program fails to start anyway prints the failure once, not again as its detail', async () => {
    const ws = await workspace(['complete']);
    // Executable, so the check passes; its interpreter does not exist, so the spawn itself fails (ENOENT).
    await writeFile(join(ws.dir, 'agent.sh'), '#!/no/such/interpreter\n');
    await chmod(join(ws.dir, 'agent.sh'), 0o755);
    const out = await ralph([
      'run',
      'x',
      '--agent-command',
      './agent.sh',
      '--max-rounds',
      '1',
      '--cwd',
      ws.dir,
    ]);

    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      'ralph: round 1/1 started\n' +
        'Ralph workflow failed: subagent provider "command" failed to start round 1: could not start agent command "./agent.sh": spawn ./agent.sh ENOENT\n',
    );
  });
});

describe('a child that exits 0 without a report: the seed line, then how to report and what it printed', () => {
  it('quotes the end of its stdout (last 20 lines) and stderr, and names $RALPH_REPORT_FILE and stdout', async () => {
    const ws = await workspace(['chatty']);
    const out = await run(ws.dir, 'Say a lot', '--max-rounds', '1');

    expect(out.code).toBe(1);
    const lastLines = Array.from({ length: 20 }, (_, i) => `thinking, line ${i + 11}`).join('\n');
    expect(out.stderr).toBe(
      [
        'ralph: round 1/1 started',
        'Ralph workflow failed: round 1 child finished without a structured report',
        'the agent exited 0 without a report; a command agent reports by writing its JSON report to the file named in $RALPH_REPORT_FILE, or by printing it as the last JSON object on stdout',
        'stdout ends with:',
        '…',
        lastLines,
        'stderr ends with:',
        'done thinking; the report is above',
        '',
      ].join('\n'),
    );
  });

  it('says (nothing) for a stream that stayed empty', async () => {
    const ws = await workspace(['no-report']);
    const out = await run(ws.dir, 'Say nothing', '--max-rounds', '1');

    expect(out.code).toBe(1);
    expect(out.stderr).toContain('stdout ends with:\n(nothing)\nstderr ends with:\n(nothing)\n');
  });
});

describe('a report without its blocker field', () => {
  it('is told that blocker is required and that null means none', async () => {
    const ws = await workspace(['no-blocker']);
    const out = await run(ws.dir, 'Forget the blocker', '--max-rounds', '1');

    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      'Ralph workflow failed: round 1 report is malformed: blocker: required; use null when there is no blocker\n',
    );
  });
});

describe('a refused flag keeps the seed text and names the flag and its range on a second line', () => {
  it.each([
    ['0', '0'],
    ['abc', 'abc'],
    ['2.5', '2.5'],
  ])('--max-rounds %s', async (value) => {
    const ws = await workspace(['complete']);
    const out = await run(ws.dir, 'x', '--max-rounds', value);

    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      `${MAX_ROUNDS_INVALID}\nralph: --max-rounds takes a whole number from 1 to 256 (got "${value}")\n`,
    );
    expect(ws.noAgentStarted()).toBe(true);
  });

  it('--max-rounds 257, over the ceiling', async () => {
    const ws = await workspace(['complete']);
    const out = await run(ws.dir, 'x', '--max-rounds', '257');

    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      'Ralph maxRounds 257 exceeds the deployment ceiling 256\nralph: --max-rounds takes a whole number from 1 to 256 (got "257")\n',
    );
  });

  it('--grace-ms -5', async () => {
    const ws = await workspace(['complete']);
    const out = await run(ws.dir, 'x', '--grace-ms', '-5');

    expect(out.code).toBe(2);
    const [first, second, rest] = out.stderr.split('\n');
    expect(first).toMatch(/^Ralph config is invalid: terminationGraceMs: /);
    expect(second).toBe('ralph: --grace-ms takes a whole number of milliseconds from 0 to 600000 (got "-5")');
    expect(rest).toBe('');
    expect(ws.noAgentStarted()).toBe(true);
  });

  it('ralph mcp --max-rounds 300', async () => {
    const out = await ralph(['mcp', '--agent', 'example', '--max-rounds', '300']);

    expect(out.code).toBe(2);
    expect(out.stderr.split('\n').slice(1)).toEqual([
      'ralph: --max-rounds takes a whole number from 1 to 256 (got "300")',
      '',
    ]);
  });

  it('no objective: says how to pass one', async () => {
    const ws = await workspace(['complete']);
    const out = await ralph(['run', '--agent-command', PLAN_AGENT_COMMAND, '--cwd', ws.dir]);

    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      `${OBJECTIVE_EMPTY}\nralph: pass the objective as the first argument, in quotes: ralph run "Tick every box in TASKS.md" --agent example\n`,
    );
  });

  it('an objective of several unquoted words: suggests quoting it', async () => {
    const ws = await workspace(['complete']);
    // The shell split `ralph run Tick every box …` into words: commander sees three operands.
    const out = await run(ws.dir, 'Tick', 'every', 'box');

    expect(out.code).toBe(2);
    expect(out.stderr).toContain(
      "error: too many arguments for 'run'. Expected 1 argument but got 3.\n" +
        'ralph: the objective is one argument; quote it: ralph run "Tick every box" …\n',
    );
    expect(ws.noAgentStarted()).toBe(true);
  });
});

const DEMO_WORKSPACE = fileURLToPath(new URL('../../examples/demo-workspace', import.meta.url));

// The help's own examples (TASKS.md, on a copy of the demo) are run as printed in cli.help-examples.test.ts.
describe('the example agent ticks the checklist the objective names', () => {
  it('ralph run "Tick every box in CHECKLIST.md" --agent example --cwd <a folder with CHECKLIST.md> completes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-demo-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await cp(DEMO_WORKSPACE, dir, { recursive: true });
    await rm(join(dir, 'TASKS.md'));
    await cp(join(DEMO_WORKSPACE, 'TASKS.md'), join(dir, 'CHECKLIST.md'));

    const out = await ralph(['run', 'Tick every box in CHECKLIST.md', '--agent', 'example', '--cwd', dir]);

    expect(out.code, out.stderr).toBe(0);
    expect(await readFile(join(dir, 'CHECKLIST.md'), 'utf8')).not.toMatch(/^- \[ \]/m);
  });

  it('an objective that names no Markdown file still means TASKS.md', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-demo-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await cp(DEMO_WORKSPACE, dir, { recursive: true });

    const out = await ralph(['run', 'Do the tasks', '--agent', 'example', '--cwd', dir]);

    expect(out.code, out.stderr).toBe(0);
    expect(await readFile(join(dir, 'TASKS.md'), 'utf8')).not.toMatch(/^- \[ \]/m);
  });

  it('a named checklist that is not there blocks the run, naming it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-demo-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));

    const out = await ralph(['run', 'Tick every box in CHECKLIST.md', '--agent', 'example', '--cwd', dir]);

    expect(out.code).toBe(3);
    expect(out.stdout).toContain(`there is no readable CHECKLIST.md in the workspace ${dir}`);
  });
});

describe('the round cap is said once at the start when only the ceiling bounds a paid agent', () => {
  const NOTE =
    'ralph: no --max-rounds given: up to 256 rounds (the ceiling); pass --max-rounds N to cap a paid agent';

  it('an --agent-command run without --max-rounds: the note, once, before round 1', async () => {
    const ws = await workspace(['continue', 'complete']);
    const out = await run(ws.dir, 'Two rounds');

    expect(out.code).toBe(0);
    expect(out.stderr.split('\n').slice(0, 2)).toEqual([NOTE, 'ralph: round 1/256 started']);
    expect(out.stderr.split(NOTE)).toHaveLength(2);
  });

  it('not for a run refused when the call comes (a --max-cost the agent cannot hold)', async () => {
    const ws = await workspace(['complete']);
    const out = await run(ws.dir, 'x', '--max-cost', '5');

    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/^Ralph cannot hold the \$5\.00 cost limit/);
    expect(ws.noAgentStarted()).toBe(true);
  });

  it('not with --max-rounds, and not for the offline example agent', async () => {
    const ws = await workspace(['complete']);
    const capped = await run(ws.dir, 'One round', '--max-rounds', '3');
    const dir = await mkdtemp(join(tmpdir(), 'ralph-demo-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await cp(DEMO_WORKSPACE, dir, { recursive: true });
    const example = await ralph(['run', 'Do the tasks', '--agent', 'example', '--cwd', dir]);

    expect(capped.stderr).not.toContain('no --max-rounds given');
    expect(example.stderr).not.toContain('no --max-rounds given');
  });
});

describe('--max-time that stops a running round says so in the result', () => {
  it('names the stopped round and says the final report is the round before', async () => {
    const ws = await workspace(['continue', 'hang']);
    const out = await run(
      ws.dir,
      'Take too long',
      '--max-rounds',
      '5',
      '--max-time',
      '8s',
      '--grace-ms',
      '500',
    );

    expect(out.code, out.stderr).toBe(4);
    expect(out.stdout.split('\n').slice(0, 3)).toEqual([
      'Ralph reached its 8s time limit; the worker reported work remaining.',
      "Round 2 was stopped when the time ran out, before it reported; the final report is round 1's.",
      'Rounds: 2',
    ]);
    expect(out.stdout).toContain('"summary": "round 1 made progress"');
  });
});

describe('ralph mcp started by hand says what it is doing', () => {
  it('one line on stderr: serving over MCP on stdio, and how to register it; the protocol still works', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--agent', 'example'],
      stderr: 'pipe',
    });
    let stderr = '';
    const said = new Promise<void>((resolve) => {
      transport.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('\n')) resolve();
      });
    });
    const client = new Client({ name: 'first-hour', version: '1.0.0' });
    cleanups.push(() => client.close());
    await client.connect(transport);
    await said;

    expect(stderr).toBe(
      'ralph: serving the ralph tool over MCP on stdio; register it in your client: claude mcp add ralph -- npx ralph mcp --agent example (Ctrl-C stops it)\n',
    );
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['ralph']);
  });
});

describe("the manual's sample agent works as written, offline (the README's examples: cli.help-examples.test.ts)", () => {
  it('the sample agent beside the command agent protocol (docs/agents.md) completes a run as it stands', async () => {
    const agent = await docBlock('docs/agents.md', 'A sample agent', 'js');
    expect(agent.trimEnd().split('\n')).toHaveLength(6);
    const ws = await workspace(['complete']);
    await writeFile(join(ws.dir, 'my-agent.mjs'), agent);

    const out = await ralph([
      'run',
      'Do the work',
      '--agent-command',
      `${process.execPath} my-agent.mjs`,
      '--max-rounds',
      '1',
      '--cwd',
      ws.dir,
    ]);

    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('"summary": "Did the work."');
  });
});
