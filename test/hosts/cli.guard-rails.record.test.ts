import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { buildRunModel } from '../../src/index.js';
import { makeWorkspace, PLAN_AGENT_COMMAND, ralph } from '../fixtures/cli-agents/harness.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/cli-agents/${name}`, import.meta.url));
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function folder(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

// A recording holds the guard rails' events like any other (the verify command's outcome, each fingerprint, the
// timers): `ralph replay` goes through them with the machine alone and prints what the run printed.
describe('ralph run --record with guard rails, then ralph replay', () => {
  it('a verify command that fails once, under the idle watch: the same lines, the same result, the same exit', async () => {
    const workspace = await folder('ralph-guard-record-');
    const logs = await folder('ralph-guard-logs-');
    const file = join(logs, 'run.jsonl');
    const check = quote([process.execPath, fixture('check-fixed.mjs')]);
    const agent = quote([process.execPath, fixture('guard-agent.mjs'), 'premature']);
    const live = await ralph([
      'run',
      'Write fixed.txt',
      '--agent-command',
      agent,
      '--cwd',
      workspace,
      '--verify',
      check,
      '--max-idle-rounds',
      '2',
      '--record',
      file,
    ]);
    expect(live.code).toBe(0);
    const replay = await ralph(['replay', file]);
    expect(replay.stdout).toBe(live.stdout);
    expect(replay.stderr).toBe(live.stderr);
    expect(replay.code).toBe(live.code);
    expect(replay.stderr).toContain('completion not accepted');
    expect(replay.stderr).toContain('left the workspace unchanged (1 of 2 idle rounds allowed in a row)');
    const model = buildRunModel(await readFile(file, 'utf8'));
    expect(model.path.map((entry) => entry.state)).toContain('running.verifying');
    expect(model.path.map((entry) => entry.state)).toContain('running.fingerprinting');
    expect(model.ending?.finalState).toBe('complete');
  });

  it('a round stopped by its timeout: the replay fails it alike', async () => {
    const ws = await makeWorkspace(['hang']);
    cleanups.push(ws.cleanup);
    const logs = await folder('ralph-guard-logs-');
    const file = join(logs, 'run.jsonl');
    const live = await ralph([
      'run',
      'Tick the box',
      '--agent-command',
      PLAN_AGENT_COMMAND,
      '--cwd',
      ws.dir,
      '--round-timeout',
      '1s',
      '--grace-ms',
      '100',
      '--record',
      file,
    ]);
    expect(live.code).toBe(1);
    const replay = await ralph(['replay', file]);
    expect(replay.stdout).toBe(live.stdout);
    expect(replay.stderr).toBe(live.stderr);
    expect(replay.code).toBe(1);
    const model = buildRunModel(await readFile(file, 'utf8'));
    // The timeout may find the child still starting or working: the round's one timer stops it either way.
    expect(model.path.map((entry) => entry.state).slice(-3)).toEqual([
      'stoppingRound',
      'roundStopped',
      'failed',
    ]);
  });

  it("a round stopped by the time limit: the replay takes the root's wall clock and ends the run alike", async () => {
    const ws = await makeWorkspace(['hang']);
    cleanups.push(ws.cleanup);
    const logs = await folder('ralph-guard-logs-');
    const file = join(logs, 'run.jsonl');
    const live = await ralph([
      'run',
      'Tick the box',
      '--agent-command',
      PLAN_AGENT_COMMAND,
      '--cwd',
      ws.dir,
      '--max-time',
      '1s',
      '--grace-ms',
      '100',
      '--record',
      file,
    ]);
    expect(live.code).toBe(1);
    expect(live.stderr).toContain('time limit');
    // The wall clock is the root's own transition: its microstep's source is the root, around every state.
    const replay = await ralph(['replay', file]);
    expect(replay.stderr).toBe(live.stderr);
    expect(replay.stdout).toBe(live.stdout);
    expect(replay.code).toBe(1);
    const model = buildRunModel(await readFile(file, 'utf8'));
    expect(model.path.map((entry) => entry.state).slice(-3)).toEqual([
      'stoppingRound',
      'roundStopped',
      'failed',
    ]);
  });
});
