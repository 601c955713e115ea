import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { workerLine } from '../../src/hosts/cli/runs-command.js';
import { statusLine } from '../../src/hosts/cli/status-command.js';
import { ralph } from '../fixtures/cli-agents/harness.js';
import { controlsIn } from '../support/terminal.js';

// An agent's summary and output, and what the fleet's database holds, are data: on the terminal they must not be able
// to retitle the window, recolour the text or clear the screen. The JSON (--json) keeps them as they are.

/** A summary full of escape sequences: a window title, a colour, a C1 CSI that clears the screen. */
const HOSTILE = '\x1b]0;owned\x07\x1b[31mred summary\x1b[0m \x9b2J';

const AGENT = `
import { writeFileSync } from 'node:fs';
for await (const _ of process.stdin);
if (process.argv[2] === 'fail') {
  process.stderr.write('\\x1b[2J\\x1b]0;owned\\x07 the agent broke\\n');
  process.exit(3);
}
const summary = ${JSON.stringify(HOSTILE)};
const round = Number(process.env.RALPH_ROUND);
const report = round === 1
  ? { status: 'continue', summary, evidence: [], nextSteps: ['\\x1b[2Jnext'], blocker: null }
  : { status: 'complete', summary, evidence: ['\\x1b[31mdone'], nextSteps: [], blocker: null };
writeFileSync(process.env.RALPH_REPORT_FILE, JSON.stringify(report));
`;

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A workspace with the hostile agent in it, and its command (with `args`). */
async function hostileAgent(...args: string[]): Promise<{ dir: string; command: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-escapes-'));
  dirs.push(dir);
  await writeFile(join(dir, 'agent.mjs'), AGENT);
  return { dir, command: quote([process.execPath, join(dir, 'agent.mjs'), ...args]) };
}

describe("ralph run prints an agent's text without its control characters", () => {
  it('progress lines and the result carry the summary as text, with no escape sequence', async () => {
    const { dir, command } = await hostileAgent();
    const out = await ralph(['run', 'Two rounds', '--agent-command', command, '--cwd', dir]);
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('reported continue: ]0;owned[31mred summary[0m 2J');
    expect(controlsIn(out.stderr)).toEqual([]);
    expect(out.stdout).toContain('Ralph complete');
    expect(controlsIn(out.stdout)).toEqual([]);
  });

  it("a failed round's detail (what the agent wrote on stderr) reaches stderr without controls", async () => {
    const { dir, command } = await hostileAgent('fail');
    const out = await ralph(['run', 'Fail', '--agent-command', command, '--cwd', dir]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('the agent broke');
    expect(controlsIn(out.stderr)).toEqual([]);
  });

  it('--json keeps the data as the agent wrote it (JSON escapes it)', async () => {
    const { dir, command } = await hostileAgent();
    const out = await ralph(['run', 'Two rounds', '--agent-command', command, '--cwd', dir, '--json']);
    expect(out.code).toBe(0);
    expect(controlsIn(out.stdout)).toEqual([]);
    expect(JSON.parse(out.stdout).result.report.summary).toBe(HOSTILE);
  });
});

describe("the fleet's lines print database values without control characters", () => {
  it('a status line (ralph status, wait, runs) and a worker line (ralph runs)', () => {
    const status = statusLine({
      runId: 'run-1\x1b[2J',
      state: 'failed',
      workerId: 'worker\x1b]0;owned\x07-1',
      roundsDone: 2,
      error: 'it broke\n\x1b[31mbadly',
    } as Parameters<typeof statusLine>[0]);
    expect(status).toBe('run-1[2J failed on worker]0;owned-1, 2 rounds done: it broke [31mbadly');
    const worker = workerLine({ workerId: 'w\x9b2J', expired: false, pid: 42, hostname: 'host\x1b[2J' });
    expect(worker).toBe('worker w2J: live (pid 42 on host[2J)');
  });
});
