import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { buildRunModel, machineHash, ralphMachine, WORKFLOW_CANCELLED } from '../../src/index.js';
import {
  type Finished,
  makeWorkspace,
  PLAN_AGENT_COMMAND,
  type PlanStep,
  ralph,
  spawnRalph,
  type Workspace,
  waitUntil,
} from '../fixtures/cli-agents/harness.js';
import { agentCommand, cleanEnv, isRunning, until, useScratch } from '../support/processes.js';

const s = useScratch();
const workspaces: Workspace[] = [];

afterEach(async () => {
  await Promise.all(workspaces.splice(0).map((workspace) => workspace.cleanup()));
});

async function workspace(plan: PlanStep[]): Promise<Workspace> {
  const made = await makeWorkspace(plan);
  workspaces.push(made);
  return made;
}

/** `ralph run` of the plan agent in a fresh workspace, recording into the scratch folder. */
async function recordedRun(plan: PlanStep[], extra: string[], agent = PLAN_AGENT_COMMAND) {
  const ws = await workspace(plan);
  const file = join(s.logs, 'run.jsonl');
  const args = [
    'run',
    'Tick every box',
    '--agent-command',
    agent,
    '--cwd',
    ws.dir,
    '--record',
    file,
    ...extra,
  ];
  return { ws, file, args };
}

/** What a replay printed must be what the run printed: stdout, stderr (a log, not a terminal) and exit code. */
function expectSamePrint(replay: Finished, live: Finished): void {
  expect(replay.stdout).toBe(live.stdout);
  expect(replay.stderr).toBe(live.stderr);
  expect(replay.code).toBe(live.code);
}

const lastLineOf = (file: string) =>
  JSON.parse(readFileSync(file, 'utf8').trimEnd().split('\n').at(-1) as string);

describe('ralph run --record, then ralph replay: the replay prints what the run printed and exits alike', () => {
  it.each([
    { name: 'complete', plan: ['continue', 'continue', 'complete'], extra: ['--max-rounds', '5'], code: 0 },
    { name: 'complete, --json', plan: ['continue', 'complete'], extra: ['--json'], code: 0 },
    { name: 'blocked', plan: ['continue', 'blocked'], extra: [], code: 3 },
    { name: 'budget-limited', plan: ['continue'], extra: ['--max-rounds', '2'], code: 4 },
    { name: 'budget-limited, --json', plan: ['continue'], extra: ['--max-rounds', '1', '--json'], code: 4 },
    { name: 'a child that fails', plan: ['continue', 'fail'], extra: [], code: 1 },
    { name: 'a child that fails, --json', plan: ['fail'], extra: ['--json'], code: 1 },
    { name: 'a missing report', plan: ['no-report'], extra: [], code: 1 },
    { name: 'refused: --max-rounds 0', plan: ['complete'], extra: ['--max-rounds', '0'], code: 2 },
    {
      name: 'refused: --max-rounds 0, --json',
      plan: ['complete'],
      extra: ['--max-rounds', '0', '--json'],
      code: 2,
    },
  ] as { name: string; plan: PlanStep[]; extra: string[]; code: number }[])(
    '$name (exit $code)',
    async ({ plan, extra, code }) => {
      const { file, args } = await recordedRun(plan, extra);
      const live = await ralph(args);
      expect(live.code).toBe(code);

      const replay = await ralph(['replay', file, ...(extra.includes('--json') ? ['--json'] : [])]);

      expectSamePrint(replay, live);
    },
  );

  it('a malformed report file (exit 1)', async () => {
    const { file, args } = await recordedRun([], [], quote(agentCommand('garbage.mjs', 'report-file')));
    const live = await ralph(args);
    expect(live.code).toBe(1);
    expect(live.stderr).toContain('report is malformed');

    expectSamePrint(await ralph(['replay', file]), live);
  });

  it.each([[[]], [['--json']]])('cancelled by Ctrl-C while round 2 runs (exit 130) %j', async (extra) => {
    const { ws, file, args } = await recordedRun(['continue', 'hang'], extra);
    const { child, finished } = spawnRalph(args);
    await waitUntil(() => ws.pidOf(2), "round 2's agent to start");
    child.kill('SIGINT');
    const live = await finished;
    expect(live.code).toBe(130);
    expect(live.stderr).toContain('cancelling: waiting for the child agent to stop');

    expectSamePrint(await ralph(['replay', file, ...extra]), live);
    expect(buildRunModel(readFileSync(file, 'utf8')).ending?.finalState).toBe('cancelled');
  });

  it('forced by a second Ctrl-C: the killed child lets the run settle, and the recording has it all', async () => {
    const { ws, file, args } = await recordedRun(['stubborn'], ['--grace-ms', '600000', '--json']);
    const { child, finished, stderrSoFar } = spawnRalph(args);
    const pid = await waitUntil(() => ws.pidOf(1), "round 1's agent to start");
    const grandchild = ws.grandchildPidOf(1);
    child.kill('SIGINT');
    await waitUntil(() => stderrSoFar().includes('cancelling'), 'the first Ctrl-C to start the cancel');
    child.kill('SIGINT');
    const live = await finished;
    expect(live.code).toBe(130);
    await until(
      () => !isRunning(pid) && !isRunning(grandchild ?? pid),
      'the stubborn agent and its grandchild to be gone',
    );

    const replay = await ralph(['replay', file, '--json']);

    expect(replay.stdout).toBe(live.stdout);
    expect(replay.code).toBe(130);
    // The replay says all the run said but the note of the second Ctrl-C, which no event records.
    const forcedNote = 'ralph: forced: killing the child agent and exiting\n';
    expect(live.stderr).toContain(forcedNote);
    expect(replay.stderr).toBe(live.stderr.replace(forcedNote, ''));
  });

  it('forced while the run cannot settle: the recording ends with the forced exit, and replays it', async () => {
    const { file, args } = await recordedRun(
      [],
      ['--grace-ms', '600000', '--json'],
      quote(agentCommand('detached-pipe-holder.mjs')),
    );
    const { child, finished, stderrSoFar } = spawnRalph(args, {
      env: cleanEnv({ FIXTURE_PID_LOG: s.pidLog }),
    });
    await until(async () => (await s.pids()).length >= 2, 'the agent and its grandchild to be in place');
    const [grandchild, agent] = await s.pids();
    try {
      child.kill('SIGINT');
      await waitUntil(() => stderrSoFar().includes('cancelling'), 'the first Ctrl-C to start the cancel');
      child.kill('SIGINT');
      const live = await finished;
      expect(live.code).toBe(130);
      expect(JSON.parse(live.stdout)).toEqual({ error: { code: 'cancelled', message: WORKFLOW_CANCELLED } });
      expect(lastLineOf(file)).toEqual({ type: '@ralph.forced-exit', t: expect.any(Number) });

      const replay = await ralph(['replay', file, '--json']);

      expect(replay.stdout).toBe(live.stdout);
      expect(replay.code).toBe(130);
      const model = buildRunModel(readFileSync(file, 'utf8'));
      expect(model.ending).toMatchObject({ finalState: 'cancelling.child', result: { ok: false } });
      expect(model.rounds.map((round) => round.outcome)).toEqual(['cancelled']);
    } finally {
      // The grandchild left the agent's group on purpose: nothing but the test stops it.
      process.kill(grandchild as number, 'SIGKILL');
      await until(
        () => !isRunning(grandchild as number) && !isRunning(agent as number),
        'the fakes to be gone',
      );
    }
  });
});

describe('ralph run --record keeps the recording to what the run was given', () => {
  it("never holds the run's environment: a secret planted there is nowhere in the file", async () => {
    const secret = 'ralph-record-secret-7c1e0f9a';
    const { file, args } = await recordedRun(['continue', 'complete'], []);
    const live = await ralph(args, {
      env: cleanEnv({ RALPH_RECORD_TEST_SECRET: secret, OTHER_TOKEN: secret }),
    });
    expect(live.code).toBe(0);

    const text = readFileSync(file, 'utf8');
    expect(text).toContain('Tick every box');
    expect(text).not.toContain(secret);
    expect(text).not.toContain('RALPH_RECORD_TEST_SECRET');
    expect(text).not.toContain(process.env.PATH as string);
  });

  it("is hashed alike by the bundled CLI and the library: a recording names this machine's hash", async () => {
    const { file, args } = await recordedRun(['complete'], []);
    await ralph(args);
    const header = JSON.parse(readFileSync(file, 'utf8').split('\n')[0] as string);
    expect(header).toMatchObject({ type: '@ralph.recording', machineHash: machineHash(ralphMachine) });
  });

  it('refuses a --record file it cannot create, before any agent starts (exit 2)', async () => {
    const ws = await workspace(['complete']);
    const file = join(s.logs, 'no-such-folder', 'run.jsonl');
    const out = await ralph([
      'run',
      'x',
      '--agent-command',
      PLAN_AGENT_COMMAND,
      '--cwd',
      ws.dir,
      '--record',
      file,
    ]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(
      new RegExp(
        `^ralph run --record ${file}: cannot create the recording \\(ENOENT.*\\); nothing was started\\n$`,
      ),
    );
    expect(out.stdout).toBe('');
    expect(ws.noAgentStarted()).toBe(true);
  });
});

describe('ralph replay refuses what it cannot replay (exit 2)', () => {
  const recorded = async () => {
    const { file, args } = await recordedRun(['continue', 'complete'], []);
    expect((await ralph(args)).code).toBe(0);
    return file;
  };

  it('a file that does not exist', async () => {
    const file = join(s.logs, 'missing.jsonl');
    const out = await ralph(['replay', file]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(new RegExp(`^ralph replay ${file}: cannot read the recording \\(ENOENT`));
    expect(out.stdout).toBe('');
  });

  it('a recording made by another machine version, naming line 1; --json prints the refusal', async () => {
    const file = await recorded();
    const [header, ...rest] = readFileSync(file, 'utf8').split('\n');
    writeFileSync(
      file,
      [JSON.stringify({ ...JSON.parse(header as string), machineHash: 'sha256:feed' }), ...rest].join('\n'),
    );

    const out = await ralph(['replay', file, '--json']);

    expect(out.code).toBe(2);
    const message = `ralph replay ${file}: line 1: the recording was made by another version of the ralph machine`;
    expect(out.stderr.startsWith(message)).toBe(true);
    expect(JSON.parse(out.stdout)).toEqual({
      error: { code: 'refused', message: expect.stringMatching(/^ralph replay .*line 1: /) },
    });
  });

  it('an event edited into one the machine cannot take, naming its line', async () => {
    const file = await recorded();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    const index = lines.findLastIndex(
      (line) => line.includes('"type":"@xstate.event"') && line.includes('xstate.done.actor.'),
    );
    const line = JSON.parse(lines[index] as string);
    lines[index] = JSON.stringify({ ...line, event: { type: 'SKIP_TO_THE_END' } });
    writeFileSync(file, `${lines.join('\n')}\n`);

    const out = await ralph(['replay', file]);

    expect(out.code).toBe(2);
    expect(out.stderr).toBe(
      `ralph replay ${file}: line ${index + 1}: the event SKIP_TO_THE_END is impossible in state running.round.awaitingReport: ` +
        'the machine has no transition for it there\n',
    );
    expect(out.stdout).toBe('');
  });
});
