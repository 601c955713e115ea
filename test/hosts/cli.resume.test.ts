import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { ralph, spawnRalph, waitUntil } from '../fixtures/cli-agents/harness.js';
import { startReceiver } from '../support/notify-receiver.js';
import { cleanEnv, isRunning, until } from '../support/processes.js';

const AGENT = fileURLToPath(new URL('../fixtures/cli-agents/resumable-agent.mjs', import.meta.url));
const AGENT_COMMAND = quote([process.execPath, AGENT]);

const folders: string[] = [];
const pidsToReap: number[] = [];

afterEach(async () => {
  for (const pid of pidsToReap.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function workspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-resume-'));
  folders.push(dir);
  return dir;
}

interface Invocation {
  round: number;
  pid: number;
  handoff: string;
  hung: string;
}

const invocations = (dir: string): Invocation[] =>
  readFileSync(join(dir, 'invocations.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const [round, pid, handoff, hung] = line.split(' ');
      return {
        round: Number(round),
        pid: Number(pid),
        handoff: (handoff as string).slice('handoff='.length),
        hung: (hung as string).slice('hung='.length),
      };
    });

const headerOf = (file: string) => JSON.parse(readFileSync(file, 'utf8').split('\n')[0] as string);

/**
 * `ralph run` recording a 5-round loop whose round 3 hangs; resolves once round 3's child is up and recorded.
 * `extra` adds run options, `env` the agent's environment.
 */
async function hostHungInRound3(dir: string, extra: string[] = [], env: NodeJS.ProcessEnv = cleanEnv()) {
  const file = join(dir, 'run.jsonl');
  const host = spawnRalph(
    [
      'run',
      'Count to five',
      '--max-rounds',
      '6',
      '--agent-command',
      AGENT_COMMAND,
      '--cwd',
      dir,
      '--record',
      file,
      ...extra,
    ],
    { env },
  );
  const hungPid = await waitUntil(
    () => existsSync(join(dir, 'hung.pid')) && Number(readFileSync(join(dir, 'hung.pid'), 'utf8')),
    'round 3 to hang',
  );
  pidsToReap.push(hungPid);
  // The agent is up before its host has recorded that it started: wait for that, so the count is known.
  await waitUntil(
    () => readFileSync(file, 'utf8').includes('"agentsStarted":3'),
    'round 3 recorded as started',
  );
  return { file, host, hungPid };
}

describe('ralph resume: a run whose host died goes on from its last accepted report', () => {
  it('after a kill -9 in round 3 of 5: rounds 1-2 are not run again, round 3 is, with a fresh child, once the old one is gone', async () => {
    const dir = await workspace();
    // A temp folder of its own: a ralph process of another test on this machine sweeps /tmp, and could kill the
    // orphan before the resume does (and says so).
    const env = cleanEnv({ TMPDIR: await workspace() });
    const { file, host, hungPid } = await hostHungInRound3(dir, [], env);
    host.child.kill('SIGKILL');
    await host.finished;
    // The host died with no exit hook: its round-3 agent is an orphan, still working.
    expect(isRunning(hungPid)).toBe(true);
    const runId = headerOf(file).runId;

    const resumed = await ralph(['resume', file, '--json', '--trust-recording'], { env });
    expect(resumed.stderr).toContain('round 3/6 started');
    // It says where it picks up, and that it killed what the dead host left running, before round 3 starts.
    expect(resumed.stderr).toContain(
      `ralph resume: resuming run ${runId} from round 3\n` +
        `ralph resume: killed the agent the dead host left behind (process group ${hungPid})\n`,
    );
    expect(resumed.code).toBe(0);
    const envelope = JSON.parse(resumed.stdout);
    expect(envelope).toMatchObject({
      runId,
      // Every child the run started: rounds 1-3 before the crash, 3 again, 4 and 5.
      agentsStarted: 6,
      result: { status: 'complete', rounds: 5, report: { summary: 'round 5 done' } },
    });
    const calls = invocations(dir);
    expect(calls.map((c) => c.round)).toEqual([1, 2, 3, 3, 4, 5]);
    // Round 3 again gets round 2's report as its handoff, and starts only once the orphan is gone.
    expect(calls[3]).toMatchObject({ round: 3, handoff: 'yes', hung: 'gone' });
    expect(calls.slice(1).every((c) => c.handoff === 'yes')).toBe(true);
    await until(() => !isRunning(hungPid), 'the orphaned round-3 agent to be gone');
    for (const c of calls) expect(isRunning(c.pid), `round ${c.round}'s agent ${c.pid}`).toBe(false);

    // The resumed run was recorded in the file, under the same run id; the recording it resumed from is kept.
    expect(headerOf(file).runId).toBe(runId);
    expect(headerOf(`${file}.1`).runId).toBe(runId);
    const again = await ralph(['resume', file, '--trust-recording'], { env: cleanEnv() });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`ralph resume ${file}: Ralph run ${runId} already settled (complete)`);
  });

  it("--notify goes with the command line, not the recording: the resumed run's ending reaches the URL given here", async () => {
    const dir = await workspace();
    const env = cleanEnv({ TMPDIR: await workspace() });
    const [first, second] = [await startReceiver(), await startReceiver()];
    onTestFinished(() => Promise.all([first.close(), second.close()]).then(() => {}));
    const { file, host } = await hostHungInRound3(dir, ['--notify', first.url], env);
    host.child.kill('SIGKILL');
    await host.finished;
    const runId = headerOf(file).runId;

    const resumed = await ralph(['resume', file, '--trust-recording', '--notify', second.url], { env });

    expect(resumed.code, resumed.stderr).toBe(0);
    expect(second.accepted()).toMatchObject([{ event: 'run.ended', runId, status: 'complete', rounds: 5 }]);
    // The dead host sent nothing, and its URL was not in the recording for the resume to find.
    expect(first.requests).toEqual([]);
    expect(readFileSync(`${file}.1`, 'utf8')).not.toContain('secret-token');
  });

  it('a cost-limited run carries what its recording says was spent: $0.40 a round, $1 limit, killed in round 3', async () => {
    const dir = await workspace();
    const env = { ...cleanEnv(), ROUND_COST: '0.4' };
    const { file, host } = await hostHungInRound3(dir, ['--agent-reports-cost', '--max-cost', '1'], env);
    host.child.kill('SIGKILL');
    await host.finished;

    // Rounds 1-2 reported $0.80; round 3 again brings it to $1.20, past the limit: no round 4 starts.
    const resumed = await ralph(['resume', file, '--json', '--trust-recording'], { env });
    expect(resumed.code, resumed.stderr).toBe(4);
    const envelope = JSON.parse(resumed.stdout);
    expect(envelope.result).toMatchObject({ status: 'budget-limited', rounds: 3 });
    expect(envelope.result.limit).toEqual({
      kind: 'cost',
      maxCostUsd: 1,
      spentUsd: 1.2,
      uncountedRounds: [3],
    });
    expect(invocations(dir).map((c) => c.round)).toEqual([1, 2, 3, 3]);
    expect(resumed.stderr).toContain(
      'ralph: round 3/6 reported continue: round 3 done [$0.40; run total $1.20]',
    );
    expect(resumed.stderr).toContain(
      "ralph: used in all: $1.20\nralph: Not counted: what round 3 spent before the run's host stopped; it is unknown (the round was run again).\n",
    );
    // The text names the figure, and says what it leaves out rather than hide it.
    const replayed = await ralph(['replay', file], { env });
    expect(replayed.stdout.split('\n').slice(0, 3)).toEqual([
      'Ralph reached its $1.00 cost limit ($1.20 spent); the worker reported work remaining.',
      "Not counted: what round 3 spent before the run's host stopped; it is unknown (the round was run again).",
      'Rounds: 3',
    ]);
    // So does the report page.
    const page = join(dir, 'run.html');
    expect((await ralph(['report', file, '-o', page], { env })).code).toBe(0);
    expect(readFileSync(page, 'utf8')).toContain(
      '<p class="note">Not counted: what round 3 spent before the run&#39;s host stopped; it is unknown (the round was run again).</p>',
    );
  });

  it('refuses a run whose host still runs, and starts nothing', async () => {
    const dir = await workspace();
    const { file, host, hungPid } = await hostHungInRound3(dir);
    try {
      const refused = await ralph(['resume', file, '--trust-recording'], { env: cleanEnv() });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/is still running in process \d+; stop it first/);
      expect(invocations(dir).map((c) => c.round)).toEqual([1, 2, 3]);
      expect(isRunning(hungPid)).toBe(true);
      expect(readFileSync(file, 'utf8').split('\n')[0]).toContain('"runId"');
      expect(existsSync(`${file}.1`)).toBe(false);
    } finally {
      host.child.kill('SIGTERM');
      await host.finished;
    }
    await until(() => !isRunning(hungPid), 'the cancelled round-3 agent to be gone');
  });

  it('refuses a file that is no recording of ralph run, naming the problem', async () => {
    const dir = await workspace();
    const missing = await ralph(['resume', join(dir, 'nope.jsonl')], { env: cleanEnv() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/ralph resume .*nope\.jsonl: cannot read the recording \(ENOENT/);
  });
});

/**
 * The recording of a host killed in round 3, its header's `ralph run` options then edited by `edit` (given the
 * workspace), as someone sharing the file could.
 */
async function editedRecording(edit: (run: Record<string, unknown>, dir: string) => void) {
  const dir = await workspace();
  const { file, host } = await hostHungInRound3(dir);
  host.child.kill('SIGKILL');
  await host.finished;
  const [first, ...rest] = readFileSync(file, 'utf8').split('\n');
  const header = JSON.parse(first as string);
  edit(header.host.ralphRun, dir);
  writeFileSync(file, [JSON.stringify(header), ...rest].join('\n'));
  return { dir, file };
}

describe('ralph resume: a recording is data; it runs only what the user consents to or gives here', () => {
  it('without --trust-recording: shows what the recording would run, exits 2 and starts nothing', async () => {
    const { dir, file } = await editedRecording((run, ws) => {
      run.agentCommand = `/bin/sh -c 'touch ${join(ws, 'pwned')}-agent'`;
      run.verify = `/bin/sh -c 'touch ${join(ws, 'pwned')}-verify'\u001b[2K`;
    });
    const pwned = join(dir, 'pwned');

    const refused = await ralph(['resume', file], { env: cleanEnv() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `ralph resume ${file}: the recording names the commands to run; nothing was started\n` +
        'Resuming it would run:\n' +
        `  agent command: ${JSON.stringify(`/bin/sh -c 'touch ${pwned}-agent'`)}\n` +
        `  verify command: ${JSON.stringify(`/bin/sh -c 'touch ${pwned}-verify'\u001b[2K`)}\n` +
        `  in the workspace: ${JSON.stringify(dir)}\n` +
        'Pass --trust-recording to run them, or give the agent here (--agent or --agent-command), which replaces every recorded command.\n',
    );
    // The escape shows quoted (\u001b), never raw.
    expect(refused.stderr).not.toContain('\u001b');
    expect(invocations(dir).map((c) => c.round)).toEqual([1, 2, 3]);
    expect(existsSync(`${pwned}-agent`)).toBe(false);
    expect(existsSync(`${file}.1`)).toBe(false);
    // Replay and report read the same file and stay inert: nothing it names runs.
    await ralph(['replay', file], { env: cleanEnv() });
    await ralph(['report', file, '-o', join(dir, 'run.html')], { env: cleanEnv() });
    expect(existsSync(`${pwned}-agent`) || existsSync(`${pwned}-verify`)).toBe(false);
    expect(invocations(dir).map((c) => c.round)).toEqual([1, 2, 3]);
  });

  it('an agent given on the command line replaces every recorded command: the recorded verify never runs', async () => {
    const { dir, file } = await editedRecording((run, ws) => {
      run.verify = `/bin/sh -c 'touch ${join(ws, 'pwned-verify')}'`;
      run.claudePath = '/bin/false';
    });
    const pwned = join(dir, 'pwned-verify');

    // Resumed from the recording's workspace: without --trust-recording the run works in the current folder.
    const resumed = await ralph(['resume', file, '--json', '--agent-command', AGENT_COMMAND], {
      cwd: dir,
      env: cleanEnv(),
    });
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ result: { status: 'complete', rounds: 5 } });
    expect(existsSync(pwned)).toBe(false);
  });

  it("an agent given here does not take the recording's workspace: another folder is refused; --cwd or the current folder is worked in", async () => {
    const victim = await workspace();
    const { dir, file } = await editedRecording((run) => {
      run.cwd = victim;
    });
    const agent = ['--json', '--agent-command', AGENT_COMMAND];

    const refused = await ralph(['resume', file, ...agent], { cwd: dir, env: cleanEnv() });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `ralph resume ${file}: the recording's run worked in ${JSON.stringify(victim)}, not in this folder; nothing was started\n` +
        'Resume it from that folder, name the workspace with --cwd, or pass --trust-recording to work where the recording says.\n',
    );
    expect(existsSync(join(victim, 'invocations.log'))).toBe(false);
    expect(existsSync(`${file}.1`)).toBe(false);

    // Named with --cwd (from anywhere), the workspace is the one the user gave: the recorded folder is never used.
    const resumed = await ralph(['resume', file, ...agent, '--cwd', dir], { cwd: victim, env: cleanEnv() });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ result: { status: 'complete', rounds: 5 } });
    expect(invocations(dir).map((c) => c.round)).toEqual([1, 2, 3, 3, 4, 5]);
    expect(existsSync(join(victim, 'invocations.log'))).toBe(false);
  });
});
