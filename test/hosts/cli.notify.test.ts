import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { type Notification, notificationSchema } from '../../src/notify/notification.js';
import {
  makeWorkspace,
  PLAN_AGENT_COMMAND,
  type PlanStep,
  ralph,
  spawnRalph,
  type Workspace,
  waitUntil,
} from '../fixtures/cli-agents/harness.js';
import {
  closedPortUrl,
  type NotifyReceiver,
  type ReceiverAnswer,
  startReceiver,
} from '../support/notify-receiver.js';

const FAKE_CLAUDE = fileURLToPath(new URL('../fixtures/bin/claude', import.meta.url));

const workspaces: Workspace[] = [];
const receivers: NotifyReceiver[] = [];
afterEach(async () => {
  await Promise.all(workspaces.splice(0).map((workspace) => workspace.cleanup()));
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function workspace(plan: PlanStep[]): Promise<Workspace> {
  const made = await makeWorkspace(plan);
  workspaces.push(made);
  return made;
}

async function receiver(...script: ReceiverAnswer[]): Promise<NotifyReceiver> {
  const started = await startReceiver(script);
  receivers.push(started);
  return started;
}

/** `ralph run <objective> --agent-command <plan agent> --cwd <workspace> ...extra`. */
const run = (dir: string, objective: string, ...extra: string[]) =>
  ralph(['run', objective, '--agent-command', PLAN_AGENT_COMMAND, '--cwd', dir, ...extra]);

/** The same run twice, in two workspaces holding the same plan: without notifications, then with `notify`. */
async function withAndWithout(plan: PlanStep[], objective: string, ...notify: string[]) {
  const plain = await run((await workspace(plan)).dir, objective);
  const notified = await run((await workspace(plan)).dir, objective, ...notify);
  return { plain, notified };
}

const parsed = (notes: unknown[]): Notification[] => notes.map((note) => notificationSchema.parse(note));

describe('ralph run --notify: a message when the run ends', () => {
  it('a complete run: one run.ended with its status, rounds and the native text; exit and output as without', async () => {
    const hook = await receiver();
    const { plain, notified } = await withAndWithout(
      ['continue', 'complete'],
      'Tick every box',
      '--notify',
      hook.url,
    );

    expect(notified.code).toBe(0);
    expect(notified.stdout).toBe(plain.stdout);
    expect(notified.stderr).toBe(plain.stderr);
    const [note, ...more] = parsed(hook.accepted());
    expect(more).toEqual([]);
    expect(note).toMatchObject({ source: 'ralph', event: 'run.ended', status: 'complete', rounds: 2 });
    expect(`${note?.text}\n`).toBe(notified.stdout);
    expect(note?.runId).toMatch(/\S/);
  });

  it('a blocked run: run.blocked, exit 3', async () => {
    const hook = await receiver();
    const { plain, notified } = await withAndWithout(
      ['continue', 'blocked'],
      'Ship it',
      '--notify',
      hook.url,
    );

    expect(notified.code).toBe(3);
    expect(notified.stdout).toBe(plain.stdout);
    expect(parsed(hook.accepted())).toMatchObject([{ event: 'run.blocked', status: 'blocked', rounds: 2 }]);
    expect(parsed(hook.accepted())[0]?.text).toContain('the API key is missing');
  });

  it('a failed run: run.ended, status failed, the failure as the text; exit 1 as without', async () => {
    const hook = await receiver();
    const { plain, notified } = await withAndWithout(['fail'], 'Crash', '--notify', hook.url);

    expect(notified.code).toBe(1);
    expect(notified.stderr).toBe(plain.stderr);
    const [note] = parsed(hook.accepted());
    expect(note).toMatchObject({ event: 'run.ended', status: 'failed', rounds: 1 });
    expect(note?.text).toContain('Ralph round 1 child failed before producing a structured report.');
  });

  it('a run that reaches its round cap: run.ended, status budget-limited; exit 4 as without', async () => {
    const hook = await receiver();
    const plain = await run((await workspace(['continue'])).dir, 'Never done', '--max-rounds', '2');
    const ws = await workspace(['continue']);
    const notified = await run(ws.dir, 'Never done', '--max-rounds', '2', '--notify', hook.url);

    expect(notified.code).toBe(4);
    expect(notified.stdout).toBe(plain.stdout);
    expect(parsed(hook.accepted())).toMatchObject([
      { event: 'run.ended', status: 'budget-limited', rounds: 2 },
    ]);
  });

  it('a run cancelled with Ctrl-C: run.ended, status cancelled, once its agent has stopped; exit 130', async () => {
    const hook = await receiver();
    const ws = await workspace(['continue', 'hang']);
    const spawned = spawnRalph([
      'run',
      'Hold on',
      '--agent-command',
      PLAN_AGENT_COMMAND,
      '--cwd',
      ws.dir,
      '--notify',
      hook.url,
    ]);
    await waitUntil(() => ws.pidOf(2), "round 2's agent to start");
    spawned.child.kill('SIGINT');
    const out = await spawned.finished;

    expect(out.code).toBe(130);
    expect(parsed(hook.accepted())).toMatchObject([
      { event: 'run.ended', status: 'cancelled', text: 'Ralph workflow was cancelled' },
    ]);
  });

  it('every --notify URL gets it', async () => {
    const [one, two] = [await receiver(), await receiver()];
    const ws = await workspace(['complete']);
    const out = await run(ws.dir, 'Done', '--notify', one.url, '--notify', two.url);

    expect(out.code).toBe(0);
    expect(one.accepted()).toHaveLength(1);
    expect(two.accepted()).toEqual(one.accepted());
  });
});

describe('a notification never blocks, slows or fails a run', () => {
  it('a receiver that refuses, then hangs, then accepts gets it once; exit, stdout and stderr as without', async () => {
    const hook = await receiver('refuse', 'hang', 'accept');
    const { plain, notified } = await withAndWithout(
      ['continue', 'complete'],
      'Tick every box',
      '--notify',
      hook.url,
      '--notify-timeout',
      '2s',
    );

    expect(notified.code).toBe(0);
    expect(notified.stdout).toBe(plain.stdout);
    expect(notified.stderr).toBe(plain.stderr);
    expect(hook.requests.map((request) => request.answer)).toEqual(['refuse', 'hang', 'accept']);
    expect(parsed(hook.accepted())).toMatchObject([{ event: 'run.ended', status: 'complete' }]);
  });

  it('a receiver that never listens: the run ends as it ends, and stderr has one line more, without the secret path', async () => {
    const url = await closedPortUrl();
    const { plain, notified } = await withAndWithout(
      ['continue', 'complete'],
      'Tick every box',
      '--notify',
      url,
    );

    expect(notified.code).toBe(0);
    expect(notified.stdout).toBe(plain.stdout);
    const extra = notified.stderr.split('\n').filter((line) => !plain.stderr.split('\n').includes(line));
    expect(extra).toHaveLength(1);
    expect(extra[0]).toMatch(
      new RegExp(
        `^ralph: notification run\\.ended to ${new URL(url).origin} not delivered: .*\\(attempt 3 of 3\\)$`,
      ),
    );
    expect(notified.stderr).not.toContain('secret-token');
  });
});

describe('a webhook URL is a secret', () => {
  it('a recording of a run keeps no notification option: neither the URL nor the command', async () => {
    const hook = await receiver();
    const ws = await workspace(['complete']);
    const recording = join(ws.dir, 'run.jsonl');
    const out = await run(
      ws.dir,
      'Done',
      '--record',
      recording,
      '--notify',
      hook.url,
      '--notify-command',
      'true',
    );

    expect(out.code).toBe(0);
    expect(parsed(hook.accepted())).toMatchObject([{ event: 'run.ended', link: recording }]);
    const text = readFileSync(recording, 'utf8');
    expect(text).not.toContain('secret-token');
    const header = JSON.parse(text.split('\n')[0] ?? '') as { host: { ralphRun: Record<string, unknown> } };
    expect(Object.keys(header.host.ralphRun).sort()).toEqual(['agentCommand', 'cwd']);
  });
});

describe('--notify and --notify-command are checked before anything starts', () => {
  it.each([
    [
      ['--notify', 'ftp://example.org/hook'],
      '--notify takes an http:// or https:// URL, not ftp: (got "ftp://example.org/hook")',
    ],
    [['--notify', 'not a url'], '--notify takes an http:// or https:// URL (got "not a url")'],
    [
      ['--notify', 'https://me:hunter2@example.org/hook'],
      "--notify takes a URL without a user name or password (https://example.org): put the receiver's token in its path or query",
    ],
    [
      ['--notify-command', 'notify-send "$TITLE"'],
      '--notify-command takes a program and its arguments, not a shell line (found "$TITLE"); wrap shell syntax in sh -c \'…\'',
    ],
    [
      ['--notify-command', 'no-such-notifier-xyz --urgent'],
      '--notify-command cannot start "no-such-notifier-xyz": it was not found on PATH',
    ],
    [
      ['--notify-command', '/etc/passwd'],
      '--notify-command cannot start "/etc/passwd": /etc/passwd is not an executable file',
    ],
    [
      ['--notify-timeout', '5s'],
      '--notify-timeout needs --notify or --notify-command: it is how long one notification may take',
    ],
  ])('%j is refused: exit 2, the reason on stderr, no agent started', async (options, message) => {
    const ws = await workspace(['complete']);
    const out = await run(ws.dir, 'Done', ...options);

    expect(out.code).toBe(2);
    expect(out.stderr).toContain(message);
    expect(out.stdout).toBe('');
    expect(ws.noAgentStarted()).toBe(true);
  });
});

describe('ralph run --notify-command: a program gets the JSON on stdin', () => {
  it('a script that writes its stdin to a file gets the run.ended notification', async () => {
    const ws = await workspace(['complete']);
    const script = join(ws.dir, 'notify.mjs');
    const saved = join(ws.dir, 'notes.jsonl');
    await writeFile(
      script,
      "import { appendFileSync } from 'node:fs'; let s = ''; process.stdin.on('data', (c) => (s += c)).on('end', () => appendFileSync(process.argv[2], s));",
    );
    const out = await run(ws.dir, 'Done', '--notify-command', quote([process.execPath, script, saved]));

    expect(out.code).toBe(0);
    const lines = readFileSync(saved, 'utf8').split('\n').filter(Boolean);
    expect(parsed(lines.map((line) => JSON.parse(line)))).toMatchObject([
      { event: 'run.ended', status: 'complete', rounds: 1, text: out.stdout.trimEnd() },
    ]);
  });
});

describe('ralph run --wait-on-limits --notify: a message when the run starts waiting out a usage limit', () => {
  it('run.limit-wait with the wait and the limit, then run.ended, in that order; costs included', async () => {
    const hook = await receiver();
    const ws = await workspace([]);
    const out = await ralph(
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
        '--notify',
        hook.url,
      ],
      {
        env: {
          ...process.env,
          FAKE_CLAUDE_MODE: 'usage-limit-once',
          FAKE_RESETS_IN: '1',
          FAKE_CLAUDE_COST: '0.03',
          RALPH_DEPTH: '',
        },
      },
    );

    expect(out.code, out.stderr).toBe(0);
    const notes = parsed(hook.accepted());
    expect(notes.map((note) => note.event)).toEqual(['run.limit-wait', 'run.ended']);
    expect(notes[0]).toMatchObject({ status: 'waiting', rounds: 1 });
    expect(notes[0]?.text).toMatch(/^round 1: hit a usage limit; waiting .* \(--wait-on-limits\)/);
    expect(notes[0]?.text).toContain('usage or rate limit');
    expect(notes[1]).toMatchObject({ status: 'complete', rounds: 1 });
    // What the fake Claude Code said its rounds cost ($0.03 each), the limited one's included.
    expect(notes[1]?.costUsd).toBe(0.06);
  });
});
