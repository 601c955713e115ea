import { execFileSync, spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { createProgressReporter } from '../../src/hosts/cli/progress.js';
import {
  CLI,
  makeWorkspace,
  PLAN_AGENT_COMMAND,
  ralph,
  type Workspace,
} from '../fixtures/cli-agents/harness.js';

const workspaces: Workspace[] = [];

afterEach(async () => {
  await Promise.all(workspaces.splice(0).map((workspace) => workspace.cleanup()));
});

// The guard rails are deployment settings of both commands; a value they cannot take is refused before anything
// starts, with exit 2 and a message naming the flag.
describe('a guard-rail flag with a value it cannot take is refused: exit 2, nothing started', () => {
  it.each([
    [['--round-timeout', '0'], '--round-timeout must be more than 0 (got "0")'],
    [['--max-time', 'soon'], '--max-time must be a duration such as 90s, 30m or 2h (got "soon")'],
    [['--max-time', '-5m'], '--max-time must be more than 0 (got "-5m")'],
    [['--max-time', '30d'], '--max-time must be at most 24d 20h 31m 23s 647ms (got "30d")'],
    [['--max-idle-rounds', '0'], '--max-idle-rounds must be a whole number from 1 to 256 (got "0")'],
    [['--max-idle-rounds', '2.5'], '--max-idle-rounds must be a whole number from 1 to 256 (got "2.5")'],
    [['--verify', 'npm test && rm -rf /'], '--verify takes a program and its arguments, not a shell line'],
    [['--verify-timeout', '5m'], '--verify-timeout needs --verify'],
    [['--verify', 'npm test', '--verify-timeout', 'never'], '--verify-timeout must be a duration'],
  ])('ralph run %j', async (flags, message) => {
    const ws = await makeWorkspace(['complete']);
    workspaces.push(ws);
    const { code, stdout, stderr } = await ralph([
      'run',
      'Tick the box',
      '--agent-command',
      PLAN_AGENT_COMMAND,
      '--cwd',
      ws.dir,
      ...flags,
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(message);
    expect(ws.noAgentStarted()).toBe(true);
  });

  it('ralph mcp takes them as server options and refuses a bad one before it serves', async () => {
    const { code, stdout, stderr } = await ralph(['mcp', '--agent', 'example', '--round-timeout', 'soon']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('--round-timeout must be a duration such as 90s, 30m or 2h (got "soon")');
  });
});

describe('--help explains each guard rail with an example', () => {
  it.each([['run'], ['mcp']])('ralph %s --help', async (command) => {
    const { code, stdout } = await ralph([command, '--help']);
    expect(code).toBe(0);
    for (const example of [
      '--round-timeout 30m',
      '--max-time 2h',
      "--verify 'npm test'",
      '--verify-timeout 5m',
      '--max-idle-rounds 3',
    ])
      expect(stdout).toContain(example);
  });
});

describe('ralph run shows the guard rails in its progress lines', () => {
  it('one plain line per guard-rail event, each naming its round and what happened', () => {
    const stream = new PassThrough();
    let written = '';
    stream.on('data', (chunk: Buffer) => {
      written += chunk.toString();
    });
    const progress = createProgressReporter(stream, { live: false, color: false });
    const at = { runId: 'r', round: 2, maxRounds: 5 };
    progress.onProgress({ type: 'verify-started', ...at, command: ['npm', 'test'] });
    progress.onProgress({
      type: 'verify-finished',
      ...at,
      command: ['npm', 'test'],
      passed: false,
      exitCode: 1,
      signal: null,
      timedOut: false,
      durationMs: 2_500,
    });
    progress.onProgress({ type: 'workspace-unchanged', ...at, idleRounds: 1, maxIdleRounds: 3 });
    progress.onProgress({ type: 'round-timed-out', ...at, roundTimeoutMs: 1_800_000 });
    progress.onProgress({ type: 'time-limit-reached', ...at, maxWallTimeMs: 7_200_000 });
    progress.stop();
    expect(written.split('\n')).toEqual([
      'ralph: round 2/5 verifying the completion with `npm test`',
      'ralph: round 2/5 verify `npm test` exited 1 after 2s 500ms: completion not accepted',
      'ralph: round 2/5 left the workspace unchanged (1 of 3 idle rounds allowed in a row)',
      'ralph: round 2/5 timed out after 30m (--round-timeout); stopping its agent',
      'ralph: the 2h time limit (--max-time) ran out; no round starts after it',
      '',
    ]);
  });
});

// The example of docs/cli.md, run from the workspace: `ralph run … --record run.jsonl > ralph.log 2> ralph.err`. Ralph's
// recording and its redirected output grow every round; the idle watch must not take them for the agents' work.
describe('--max-idle-rounds leaves out what ralph itself writes into the workspace', () => {
  const idleAgent = quote([
    process.execPath,
    fileURLToPath(new URL('../fixtures/cli-agents/guard-agent.mjs', import.meta.url)),
    'idle',
  ]);
  const folders: string[] = [];
  afterEach(async () => {
    await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
  });

  it.each([
    ['a folder', () => {}],
    ['a git repository', (dir: string) => execFileSync('git', ['init', '-q'], { cwd: dir })],
  ])(
    'in %s: a recording by a relative path, stdout and stderr redirected into it: 2 idle rounds end the run',
    async (_, setUp) => {
      const dir = await mkdtemp(join(tmpdir(), 'ralph-idle-own-'));
      folders.push(dir);
      setUp(dir);
      const out = openSync(join(dir, 'ralph.log'), 'w');
      const err = openSync(join(dir, 'ralph.err'), 'w');
      const args = [
        'run',
        'Wait for something to happen',
        '--agent-command',
        idleAgent,
        '--record',
        'run.jsonl',
      ];
      const child = spawn(process.execPath, [CLI, ...args, '--max-idle-rounds', '2', '--max-rounds', '20'], {
        cwd: dir,
        stdio: ['ignore', out, err],
      });
      const code = await new Promise<number | null>((resolve, reject) => {
        child.on('error', reject);
        child.on('close', resolve);
      });
      const stdout = readFileSync(join(dir, 'ralph.log'), 'utf8');
      expect(stdout.split('\n').slice(0, 2)).toEqual([
        'Ralph reached its 2 idle rounds limit; the worker reported work remaining, but the workspace did not change in the last 2 rounds.',
        'Rounds: 2',
      ]);
      expect(readFileSync(join(dir, 'ralph.err'), 'utf8')).toContain(
        'ralph: round 2/20 left the workspace unchanged (2 of 2 idle rounds allowed in a row)',
      );
      expect(code).toBe(4);
    },
  );
});
