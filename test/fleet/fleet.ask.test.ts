import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { notificationSchema } from '../../src/notify/notification.js';
import { startReceiver } from '../support/notify-receiver.js';
import {
  type AgentWorkspace,
  killedAfterTest,
  ralph,
  startDashboard,
  startWorker,
  stopWorker,
  submitArgs,
  useFleetScene,
  waitFor,
} from './harness.js';

const scene = useFleetScene();

/** The agent blocks in round 1 and completes in round 2 (reading the person's answer from its prompt). */
const BLOCKING = { FLEET_AGENT_BLOCK_ROUND: '1', FLEET_AGENT_ROUNDS: '2' };
const QUESTION = 'Which database should the migration target?';

/** `ralph answer` of a fleet run: no local question, so through the database it names. */
const answerArgs = (url: string, runId: string, ...given: string[]) => [
  'answer',
  runId,
  ...given,
  '--database-url',
  url,
];

/** Submits the blocking agent's run with `extra` (its ask) and resolves with its id. */
async function submitAsking(url: string, ws: AgentWorkspace, ...extra: string[]): Promise<string> {
  const submitted = await ralph(submitArgs(url, ws.dir, 'Migrate the schema', ...extra));
  expect(submitted.code).toBe(0);
  return submitted.stdout.trim();
}

/** Waits until `ralph status` says the run waits for the answer to round 1's blocker; resolves with the line. */
function waitingLine(url: string, runId: string): Promise<string> {
  return waitFor(
    async () => {
      const { stdout } = await ralph(['status', runId, '--database-url', url]);
      return stdout.includes("waiting for an answer to round 1's blocker") && stdout;
    },
    'the run to wait for an answer',
    60_000,
  );
}

/** A run that asks, on a worker of its own, waiting for the answer to round 1's blocker. */
async function waitingRun(database: string, workerId: string) {
  const url = scene.databaseFor(database);
  const ws = await scene.workspace();
  const worker = killedAfterTest(
    scene,
    await startWorker(url, workerId, { env: { ...BLOCKING, TMPDIR: ws.dir } }),
  );
  const runId = await submitAsking(url, ws, '--ask');
  await waitingLine(url, runId);
  return { url, ws, runId, worker };
}

/** The answers the agents of `round` read in their prompts (answer-<round>.<pid>). */
const answersRead = (ws: AgentWorkspace, round: number) =>
  readdirSync(ws.dir)
    .filter((name) => name.startsWith(`answer-${round}.`))
    .map((name) => readFileSync(join(ws.dir, name), 'utf8'));

describe('a fleet run that asks (ralph submit --ask)', () => {
  it('waits with no worker alive: the answer given meanwhile is taken once by the next worker', async () => {
    const url = scene.databaseFor('ask_takeover');
    const ws = await scene.workspace();
    const env = { ...BLOCKING, TMPDIR: ws.dir };
    const first = killedAfterTest(scene, await startWorker(url, 'ask-a', { env }));
    const runId = await submitAsking(url, ws, '--ask');

    const line = await waitingLine(url, runId);
    expect(line).toContain(`${runId} queued, 1 round done, waiting for an answer`);
    expect(line).toContain(`: ${QUESTION}`);
    // The round's agent reported and is gone: the run waits holding no agent process.
    expect(ws.log()).toEqual([expect.stringMatching(/^start 1 /), expect.stringMatching(/^end 1 /)]);

    first.child.kill('SIGKILL');
    await first.exited;
    // Answered while no worker is alive; a second answer to the same question (a second person) is refused.
    const answered = await ralph(answerArgs(url, runId, 'Use the staging Postgres'));
    expect(answered.stderr).toBe('');
    expect(answered.code).toBe(0);
    expect(answered.stdout).toBe(
      `ralph answer: sent the answer to round 1's blocker of fleet run ${runId}; the worker that runs it next takes it\n`,
    );
    const again = await ralph(answerArgs(url, runId, 'Use MySQL'));
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      `ralph: round 1's blocker of fleet run ${runId} has its answer already; the first answer counts\n`,
    );

    const second = killedAfterTest(scene, await startWorker(url, 'ask-b', { env }));
    const waited = await ralph(['wait', runId, '--json', '--database-url', url]);
    expect(waited.code).toBe(0);
    const envelope = JSON.parse(waited.stdout) as { result: { status: string; rounds: number } };
    expect(envelope.result).toMatchObject({ status: 'complete', rounds: 2 });
    // Round 1 ran once (replayed from its step), round 2 once, with the first answer, labelled as a person's.
    expect(ws.startsOf(1)).toHaveLength(1);
    expect(ws.startsOf(2)).toHaveLength(1);
    expect(answersRead(ws, 2)).toEqual([
      expect.stringContaining(
        "A person's answer to the blocker (a person wrote this, not an agent): Use the staging Postgres",
      ),
    ]);
    expect(second.stderr()).toContain(`${runId} complete after 2 rounds`);

    // Its wait is over: another answer is refused, naming the run's state.
    const late = await ralph(answerArgs(url, runId, 'Too late'));
    expect(late.code).toBe(2);
    expect(late.stderr).toBe(`ralph: fleet run ${runId} is not waiting for an answer (it is complete)\n`);
  }, 120_000);

  it('ends blocked with the unanswered question once its wait is over, across a takeover; a run without --ask is refused an answer', async () => {
    const url = scene.databaseFor('ask_timeout');
    const ws = await scene.workspace();
    const env = { ...BLOCKING, TMPDIR: ws.dir };
    const first = killedAfterTest(scene, await startWorker(url, 'ask-t1', { env }));
    const runId = await submitAsking(url, ws, '--wait-for-answers', '6s');
    await waitingLine(url, runId);
    const questionNow = async () => {
      const { stdout } = await ralph(['status', runId, '--json', '--database-url', url]);
      return (JSON.parse(stdout) as { question?: { askedAt: number; deadline: number } }).question;
    };
    const before = await questionNow();
    expect(before?.deadline).toBe((before?.askedAt ?? 0) + 6_000);
    first.child.kill('SIGKILL');
    await first.exited;
    // No worker until its wait is over: the worker that takes it over then waits only the rest (none), since when
    // the wait began is the run's, recorded once; waiting afresh it would end a whole wait after it started.
    await waitFor(() => Date.now() > (before?.deadline ?? 0) + 100, "the run's wait to be over");
    const takenOver = Date.now();
    killedAfterTest(scene, await startWorker(url, 'ask-t2', { env }));
    const settled = await ralph(['wait', runId, '--json', '--database-url', url]);
    expect(settled.code).toBe(3);
    const { stdout } = await ralph(['status', runId, '--json', '--database-url', url]);
    const status = JSON.parse(stdout) as { workerId: string; updatedAt: number; question?: unknown };
    expect(status).toMatchObject({ workerId: 'ask-t2', state: 'blocked' });
    expect(status.question).toBeUndefined();
    expect(status.updatedAt - takenOver).toBeLessThan(6_000);
    const waited = await ralph(['wait', runId, '--json', '--database-url', url]);
    const envelope = JSON.parse(waited.stdout) as {
      result: { status: string; rounds: number; question?: unknown };
    };
    expect(envelope.result).toMatchObject({
      status: 'blocked',
      rounds: 1,
      question: { round: 1, reason: 'timed-out', waitMs: 6_000 },
    });
    expect(ws.startsOf(2)).toEqual([]);

    const plain = await submitAsking(url, await scene.workspace());
    await ralph(['wait', plain, '--database-url', url]);
    const refused = await ralph(answerArgs(url, plain, 'Anything'));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`^ralph: fleet run ${plain} is not waiting for an answer`));
    const empty = await ralph(answerArgs(url, runId, '   '));
    expect(empty.code).toBe(2);
  }, 120_000);

  it('holds no worker slot while it waits: a worker of concurrency 1 runs another run meanwhile', async () => {
    const url = scene.databaseFor('ask_slot');
    const ws = await scene.workspace();
    const other = await scene.workspace();
    await writeFile(join(other.dir, 'no-block'), '');
    const worker = killedAfterTest(
      scene,
      await startWorker(url, 'ask-s', {
        env: { ...BLOCKING, TMPDIR: ws.dir },
        extra: ['--concurrency', '1'],
      }),
    );
    const asking = await submitAsking(url, ws, '--ask');
    await waitingLine(url, asking);
    const plain = await submitAsking(url, other);
    const done = await ralph(['wait', plain, '--json', '--database-url', url]);
    expect(JSON.parse(done.stdout).result).toMatchObject({ status: 'complete', rounds: 2 });
    await waitingLine(url, asking);
    expect(worker.stderr()).toContain(`${asking} waits for an answer, holding no worker slot`);

    expect((await ralph(answerArgs(url, asking, 'Go on'))).code).toBe(0);
    const answered = await ralph(['wait', asking, '--json', '--database-url', url]);
    expect(JSON.parse(answered.stdout).result).toMatchObject({ status: 'complete', rounds: 2 });
    expect(ws.startsOf(1)).toHaveLength(1);
    expect(ws.startsOf(2)).toHaveLength(1);
    expect(worker.stderr()).not.toMatch(/not recorded|warn|error/i);
  }, 120_000);

  it('is cancelled while it waits, parked on no worker: it ends cancelled and takes no answer', async () => {
    const { url, ws, runId, worker } = await waitingRun('ask_cancel', 'ask-c');
    // Its worker stops at once (SIGTERM): nothing of the parked run holds it.
    await stopWorker(worker);
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    expect((await ralph(['cancel', runId, '--database-url', url])).code).toBe(0);
    const waited = await ralph(['wait', runId, '--database-url', url]);
    expect(waited.code).toBe(130);
    const late = await ralph(answerArgs(url, runId, 'Too late'));
    expect(late.stderr).toBe(`ralph: fleet run ${runId} is not waiting for an answer (it is cancelled)\n`);
    expect(ws.startsOf(2)).toEqual([]);
  }, 120_000);

  it('notifies its question once, though it runs again once answered; then its end', async () => {
    const url = scene.databaseFor('ask_notify');
    const ws = await scene.workspace();
    const receiver = await startReceiver();
    onTestFinished(() => receiver.close());
    const env = { ...BLOCKING, TMPDIR: ws.dir };
    killedAfterTest(scene, await startWorker(url, 'ask-n', { env, extra: ['--notify', receiver.url] }));
    const runId = await submitAsking(url, ws, '--ask');
    await waitingLine(url, runId);
    expect((await ralph(answerArgs(url, runId, 'Go on'))).code).toBe(0);
    expect((await ralph(['wait', runId, '--database-url', url])).code).toBe(0);
    const notes = (await receiver.untilAccepted(2)).map((body) => notificationSchema.parse(body));
    expect(notes).toMatchObject([
      { event: 'run.question', runId, question: QUESTION, round: 1 },
      { event: 'run.ended', runId, status: 'complete' },
    ]);
    expect(receiver.accepted()).toHaveLength(2);
  }, 120_000);

  it('gives up from the command line: the run ends blocked at once, saying a person chose not to answer', async () => {
    const { url, ws, runId } = await waitingRun('ask_give_up', 'ask-g');
    expect((await ralph(answerArgs(url, runId, '--give-up'))).code).toBe(0);
    const waited = await ralph(['wait', runId, '--database-url', url]);
    expect(waited.stdout).toContain("A person chose not to answer round 1's blocker; the run ended blocked.");
    expect(ws.startsOf(2)).toEqual([]);
  }, 120_000);

  it('shows the question on the dashboard and takes the answer there, with its token and header only', async () => {
    const url = scene.databaseFor('ask_dashboard');
    const ws = await scene.workspace();
    const blocker = 'Which <b>schema</b> & "why"?';
    killedAfterTest(
      scene,
      await startWorker(url, 'ask-d', { env: { ...BLOCKING, TMPDIR: ws.dir, FLEET_AGENT_BLOCKER: blocker } }),
    );
    const runId = await submitAsking(url, ws, '--ask');
    const { address } = await startDashboard(scene, url);
    const token = address.searchParams.get('token') ?? '';
    const api = (path: string) => new URL(`${path}?token=${token}`, address).toString();
    const listed = await waitFor(async () => {
      const page = (await (await fetch(api('/api/runs'))).json()) as {
        runs: { runId: string; question: { round: number; question: string } | null }[];
      };
      return page.runs.find((run) => run.runId === runId && run.question !== null);
    }, 'the dashboard to list the question');
    expect(listed.question).toMatchObject({ round: 1, question: blocker });

    const post = (target: string, body: string, headers: Record<string, string>) =>
      fetch(target, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
    const answerPath = `/api/runs/${encodeURIComponent(runId)}/answer`;
    const page = { 'x-ralph-dashboard': 'answer' };
    const noToken = await post(new URL(answerPath, address).toString(), '{"text":"x"}', page);
    expect(noToken.status).toBe(403);
    expect((await post(api(answerPath), '{"text":"x"}', {})).status).toBe(403);
    const elsewhere = { ...page, origin: 'http://evil.example' };
    expect((await post(api(answerPath), '{"text":"x"}', elsewhere)).status).toBe(403);
    expect((await post(api(answerPath), '{"text":', page)).status).toBe(400);
    expect((await post(api(answerPath), '{"text":"  "}', page)).status).toBe(400);
    expect((await post(api(answerPath), JSON.stringify({ text: 'x'.repeat(9_000) }), page)).status).toBe(400);
    const answered = await post(api(answerPath), JSON.stringify({ text: 'Use <i>public</i>' }), page);
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual({ answered: runId, round: 1 });

    const waited = await ralph(['wait', runId, '--json', '--database-url', url]);
    expect(JSON.parse(waited.stdout).result).toMatchObject({ status: 'complete', rounds: 2 });
    expect(answersRead(ws, 2)).toEqual([expect.stringContaining(': Use <i>public</i>')]);
    const after = await post(api(answerPath), '{"text":"again"}', page);
    expect(after.status).toBe(409);
  }, 120_000);
});
