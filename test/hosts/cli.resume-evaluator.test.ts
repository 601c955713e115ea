import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { ralph, spawnRalph, waitUntil } from '../fixtures/cli-agents/harness.js';
import { cleanEnv, isRunning, until } from '../support/processes.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/cli-agents/${name}`, import.meta.url));
const AGENT_COMMAND = quote([process.execPath, fixture('resumable-agent.mjs')]);
const EVALUATOR_COMMAND = quote([process.execPath, fixture('resumable-evaluator.mjs')]);

const folders: string[] = [];
const pidsToReap: number[] = [];

afterEach(async () => {
  for (const pid of pidsToReap.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-resume-evaluator-'));
  folders.push(dir);
  return dir;
}

/**
 * A workspace, the evaluator's own folder (outside it: an evaluator must not change the workspace) and a temp
 * folder of the test's own (a ralph process of another test sweeps /tmp, and could kill an orphan before the
 * resume does). `plan` is what the evaluator's starts do, in turn; the agent reports complete every round. With
 * `costs`, each round says it cost $0.40 and each evaluator that answers $0.10.
 */
async function scene(plan: string, costs = false) {
  const dir = await folder();
  const evaluatorDir = await folder();
  const env = cleanEnv({
    TMPDIR: await folder(),
    EVALUATOR_LOG_DIR: evaluatorDir,
    EVALUATOR_PLAN: plan,
    DONE_ROUND: '1',
    ...(costs ? { ROUND_COST: '0.4', EVALUATOR_COST: '0.1' } : {}),
  });
  const file = join(dir, 'run.jsonl');
  const starts = () =>
    existsSync(join(evaluatorDir, 'starts.log'))
      ? readFileSync(join(evaluatorDir, 'starts.log'), 'utf8').trim().split('\n')
      : [];
  const rounds = () =>
    readFileSync(join(dir, 'invocations.log'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => Number(line.split(' ')[0]));
  const costFlags = costs ? ['--agent-reports-cost', '--evaluator-reports-cost'] : [];
  return { dir, evaluatorDir, env, file, starts, rounds, costFlags };
}

type Scene = Awaited<ReturnType<typeof scene>>;

const runArgs = (s: Scene, extra: string[] = []) => [
  'run',
  'Count to one',
  '--max-rounds',
  '3',
  '--agent-command',
  AGENT_COMMAND,
  '--evaluator-command',
  EVALUATOR_COMMAND,
  '--cwd',
  s.dir,
  '--record',
  s.file,
  ...s.costFlags,
  ...extra,
];

/** `ralph run --record` killed with SIGKILL while round 1's evaluator hangs; resolves with the orphaned evaluator. */
async function killedWhileEvaluating(s: Scene): Promise<number> {
  const host = spawnRalph(runArgs(s), { env: s.env });
  const hungPid = await waitUntil(
    () =>
      existsSync(join(s.evaluatorDir, 'hung.pid')) &&
      Number(readFileSync(join(s.evaluatorDir, 'hung.pid'), 'utf8')),
    "round 1's evaluator to hang",
  );
  pidsToReap.push(hungPid);
  // The evaluator is up before its host has recorded that it started: wait for the run to rest awaiting its verdict.
  await waitUntil(
    () => readFileSync(s.file, 'utf8').includes('"value":{"running":{"evaluating":"awaitingVerdict"}}'),
    'the run recorded as awaiting the verdict',
  );
  host.child.kill('SIGKILL');
  await host.finished;
  expect(isRunning(hungPid)).toBe(true);
  return hungPid;
}

const headerOf = (file: string) => JSON.parse(readFileSync(file, 'utf8').split('\n')[0] as string);

describe('ralph resume: a host killed while its evaluator checked a completion evaluates it again', () => {
  it("kill -9 during round 1's evaluation: no round runs again, a fresh evaluator runs once the old one is gone", async () => {
    const s = await scene('hang,accept', true);
    const hungPid = await killedWhileEvaluating(s);
    const runId = headerOf(s.file).runId;

    const resumed = await ralph(['resume', s.file, '--json', '--trust-recording'], { env: s.env });

    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `ralph resume: resuming run ${runId} from round 1's evaluation\n` +
        `ralph resume: killed the agent the dead host left behind (process group ${hungPid})\n` +
        'ralph: round 1/3 evaluator command-evaluator checking the reported completion in the workspace\n' +
        'ralph: round 1/3 evaluator accepted: 1 piece of evidence\n' +
        // Round 1's $0.40 from the recording, the fresh evaluator's $0.10; the killed one's spend was never heard.
        'ralph: used in all: $0.50\n',
    );
    expect(resumed.stderr).not.toContain('started');
    expect(JSON.parse(resumed.stdout)).toMatchObject({
      runId,
      // The worker of round 1, the only one: its report is in the recording, and the resume does not run it again.
      agentsStarted: 1,
      result: {
        status: 'complete',
        rounds: 1,
        report: { status: 'complete', summary: 'round 1 done' },
        evaluation: {
          evaluator: 'command-evaluator',
          round: 1,
          verdict: 'accept',
          evidence: ['round 1 checked'],
        },
      },
    });
    expect(s.rounds()).toEqual([1]);
    // Two evaluators in all: the one the dead host left, and a fresh one that started once it was gone.
    const starts = s.starts();
    expect(starts).toHaveLength(2);
    expect(starts[1]).toMatch(/ hung=gone$/);
    await until(() => !isRunning(hungPid), 'the orphaned evaluator to be gone');
    for (const line of starts) expect(isRunning(Number(line.split(' ')[0]))).toBe(false);

    // The resumed run is recorded again and replays to what it printed; the recording it resumed from is kept.
    expect(headerOf(`${s.file}.1`).runId).toBe(runId);
    const replayed = await ralph(['replay', s.file, '--json'], { env: cleanEnv() });
    expect(replayed.code).toBe(0);
    expect(JSON.parse(replayed.stdout)).toEqual(JSON.parse(resumed.stdout));
    const printed = resumed.stderr.replace(/^ralph resume: .*\n/gm, '');
    expect(replayed.stderr).toBe(printed);
    expect(s.starts()).toHaveLength(2);
  });

  it('a recording is data: its evaluator runs only with consent, and one given here replaces it', async () => {
    const s = await scene('hang,accept');
    await killedWhileEvaluating(s);
    const [first, ...rest] = readFileSync(s.file, 'utf8').split('\n');
    const header = JSON.parse(first as string);
    const pwned = join(s.dir, 'pwned');
    header.host.ralphRun.evaluatorCommand = `/bin/sh -c 'touch ${pwned}'`;
    writeFileSync(s.file, [JSON.stringify(header), ...rest].join('\n'));

    const refused = await ralph(['resume', s.file], { cwd: s.dir, env: s.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `ralph resume ${s.file}: the recording names the commands to run; nothing was started\n` +
        'Resuming it would run:\n' +
        `  agent command: ${JSON.stringify(AGENT_COMMAND)}\n` +
        `  evaluator command: ${JSON.stringify(`/bin/sh -c 'touch ${pwned}'`)}\n` +
        `  in the workspace: ${JSON.stringify(s.dir)}\n` +
        'Pass --trust-recording to run them, or give the agent and the evaluator here (--agent or --agent-command, and --evaluator or --evaluator-command), which replace every recorded command.\n',
    );
    // The agent alone given here would leave the recorded evaluator to run (or the run with none): refused too.
    const agentOnly = await ralph(['resume', s.file, '--agent-command', AGENT_COMMAND], {
      cwd: s.dir,
      env: s.env,
    });
    expect(agentOnly.code).toBe(2);
    expect(agentOnly.stderr).toBe(
      `ralph resume ${s.file}: the recording names the commands to run; nothing was started\n` +
        'Resuming it would run:\n' +
        `  evaluator command: ${JSON.stringify(`/bin/sh -c 'touch ${pwned}'`)}\n` +
        `  in the workspace: ${JSON.stringify(s.dir)}\n` +
        'Pass --trust-recording to run them, or give the agent and the evaluator here (--agent or --agent-command, and --evaluator or --evaluator-command), which replace every recorded command.\n',
    );
    expect(existsSync(`${s.file}.1`)).toBe(false);
    expect(s.starts()).toHaveLength(1);

    // Both given here: the evaluator of the command line checks round 1 again; the recorded one never runs.
    const resumed = await ralph(
      [
        'resume',
        s.file,
        '--json',
        '--agent-command',
        AGENT_COMMAND,
        '--evaluator-command',
        EVALUATOR_COMMAND,
      ],
      { cwd: s.dir, env: s.env },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).result).toMatchObject({ status: 'complete', rounds: 1 });
    expect(s.starts()).toHaveLength(2);
    expect(existsSync(pwned)).toBe(false);
  });

  it('refuses a resume point that says evaluating when the resumed run has no evaluator, starting nothing', async () => {
    const s = await scene('hang');
    await killedWhileEvaluating(s);
    const [first, ...rest] = readFileSync(s.file, 'utf8').split('\n');
    const header = JSON.parse(first as string);
    delete header.host.ralphRun.evaluatorCommand;
    writeFileSync(s.file, [JSON.stringify(header), ...rest].join('\n'));

    const refused = await ralph(['resume', s.file, '--trust-recording'], { env: s.env });

    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "Ralph cannot resume the run: it stopped while an evaluator was checking round 1's completion: resume it with an evaluator\n",
    );
    expect(s.rounds()).toEqual([1]);
    expect(s.starts()).toHaveLength(1);
  });
});

describe('ralph replay of a run with an evaluator prints what the run printed', () => {
  it('a reject then an accept: the same progress lines, the same text, the same exit code', async () => {
    const s = await scene('reject,accept', true);
    const run = await ralph(runArgs(s), { env: s.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('ralph: round 1/3 evaluator rejected: 1 finding\n');
    // Two rounds at $0.40 and two evaluators at $0.10: the evaluators' spend is counted, and shown in the total.
    expect(run.stderr).toMatch(/ralph: used in all: \$1\.00\n$/);

    const replayed = await ralph(['replay', s.file], { env: cleanEnv() });

    expect(replayed).toMatchObject({ code: run.code, stdout: run.stdout, stderr: run.stderr });
    // Its evaluators' outputs come from the recording: none starts.
    expect(s.starts()).toHaveLength(2);
    expect(s.rounds()).toEqual([1, 2]);
  });
});
