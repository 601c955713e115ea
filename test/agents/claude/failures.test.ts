import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childFailureMessage, WORKFLOW_CANCELLED, workflowFailed } from '../../../src/contract/messages.js';
import { spawnRalph } from '../../fixtures/cli-agents/harness.js';
import { isRunning, until } from '../../support/processes.js';
import { hasTool, type Reply, startAnthropicServer } from '../support/anthropic-server.js';
import { assertInstalled, claudeHome, claudePath } from '../support/claude-env.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

beforeAll(assertInstalled);

/** Pids of the running processes whose environment holds this HOME: the claude children of one test. */
function processesWithHome(home: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (environ.includes(`HOME=${home}`) && isRunning(Number(entry))) found.push(Number(entry));
    } catch {
      // gone while we looked, or not ours to read
    }
  }
  return found;
}

/** `ralph run --agent claude` against a model that answers every main-loop request with `reply`. */
async function start(reply: Reply) {
  const server = await startAnthropicServer([
    { when: (request) => hasTool(request, 'StructuredOutput'), reply, repeat: true },
  ]);
  cleanups.push(() => server.close());
  const home = await claudeHome(server.url);
  cleanups.push(() => home.cleanup());
  // Claude Code retries a failed model call with backoff for minutes; the failure, not the retries, is tested here.
  home.env.CLAUDE_CODE_MAX_RETRIES = '0';
  const workspace = await mkdtemp(join(tmpdir(), 'ralph-claude-ws-'));
  cleanups.push(() => rm(workspace, { recursive: true, force: true }));
  const ralph = spawnRalph(
    ['run', 'Do the work', '--agent', 'claude', '--claude-path', claudePath, '--cwd', workspace],
    { env: home.env },
  );
  return { server, home, ralph };
}

/** stderr without ralph's progress lines. */
const messageOf = (stderr: string): string =>
  stderr
    .split('\n')
    .filter((line) => !line.startsWith('ralph: '))
    .join('\n');

describe('ralph run --agent claude fails as the seed says when the real Claude Code round goes wrong', () => {
  it('a model that answers in text and never calls StructuredOutput: a missing report', async () => {
    const { server, ralph } = await start({ text: 'I did the work. Report: all done.' });
    const out = await ralph.finished;

    expect(out.code).toBe(1);
    const [message, ...detail] = messageOf(out.stderr).trim().split('\n');
    expect(message).toBe(workflowFailed('round 1 child finished without a structured report'));
    // The detail says what the agent printed: Claude Code's result, with the model's prose in it.
    expect(detail.slice(0, 2)).toEqual(['the agent exited 0 without a report', 'stdout ends with:']);
    expect(detail.join('\n')).toContain('I did the work. Report: all done.');
    // Claude Code asked the model once more for the structured output before giving up.
    expect(JSON.stringify(server.turnRequests().at(-1))).toContain('You MUST call the StructuredOutput tool');
  });

  it('a StructuredOutput report that breaks the status rules: a malformed report', async () => {
    const { ralph } = await start({
      toolUse: {
        name: 'StructuredOutput',
        input: { status: 'continue', summary: 'did a bit', evidence: [], nextSteps: [], blocker: null },
      },
    });
    const out = await ralph.finished;

    expect(out.code).toBe(1);
    expect(messageOf(out.stderr).split('\n')[0]).toBe(
      'Ralph workflow failed: round 1 report is malformed: nextSteps: a continue report must list next steps',
    );
  });

  it.each([
    ['answers 500', { status: 500, message: 'scripted overload' }],
    ['closes the stream mid-way', { cutMidStream: true }],
  ] as [string, Reply][])(
    'a model server that %s: claude exits non-zero, a child failure',
    async (_, reply) => {
      const { ralph } = await start(reply);
      const out = await ralph.finished;

      expect(out.code).toBe(1);
      expect(messageOf(out.stderr)).toContain(childFailureMessage(1, null));
      expect(messageOf(out.stderr)).toMatch(/agent command ".*claude" exited with code 1/);
    },
  );

  it('Ctrl-C on ralph run while claude waits on the model: exit 130, cancelled, no claude process left', async () => {
    const { server, home, ralph } = await start({ hold: true });
    const claudePid = (await server.held).pid;
    expect(claudePid).toEqual(expect.any(Number));
    expect(processesWithHome(home.home)).toContain(claudePid);

    ralph.child.kill('SIGINT');
    const out = await ralph.finished;

    expect(out.code).toBe(130);
    expect(messageOf(out.stderr)).toContain(WORKFLOW_CANCELLED);
    await until(() => !isRunning(claudePid!), 'the claude child to be gone');
    expect(processesWithHome(home.home).filter((pid) => pid !== ralph.child.pid)).toEqual([]);
  });
});
