import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, test } from 'vitest';
import { leaveAnswer, readQuestion } from '../../src/run/answer-folder.js';
import { CLI, ralph, spawnRalph, waitUntil } from '../fixtures/cli-agents/harness.js';
import { batchScene } from '../support/batch-scene.js';
import { gitIn, tempFolder } from '../support/git-repo.js';
import { startReceiver } from '../support/notify-receiver.js';
import { hasScript } from '../support/terminal.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/batch-agents/${name}`, import.meta.url));
const AGENT = quote([process.execPath, fixture('edit-agent.mjs')]);
const ASK_AGENT = quote([process.execPath, fixture('ask-agent.mjs')]);
const QUESTION = 'Which database should the migration target?';

/** A scene whose first task asks (its own agent, so --trust-tasks) and whose others just write a file; a temp HOME. */
function askScene(others: string[]) {
  const scene = batchScene([
    { id: 'asker', objective: `ask ${QUESTION}`, agent: ASK_AGENT },
    ...others.map((id) => ({ id, objective: `write ${id}.txt from ${id}` })),
  ]);
  const home = tempFolder('ralph-batch-home-');
  return { ...scene, home, stateDir: join(home, '.ralph'), env: { ...scene.env, HOME: home } };
}

/** The last status the batch's recording gives each task. */
function recordedStatuses(recording: string): Record<string, string> {
  if (!existsSync(recording)) return {};
  const last: Record<string, string> = {};
  for (const line of readFileSync(recording, 'utf8').split('\n').filter(Boolean)) {
    const parsed = JSON.parse(line) as { kind?: string; id?: string; status?: string };
    if (parsed.kind === 'task' && parsed.id !== undefined && parsed.status !== undefined)
      last[parsed.id] = parsed.status;
  }
  return last;
}

/** The run ids that wait for an answer under the temp HOME's ~/.ralph/asks. */
const waitingRuns = (stateDir: string): string[] => {
  const asks = join(stateDir, 'asks');
  return existsSync(asks) ? readdirSync(asks).filter((id) => readQuestion(id, stateDir) !== undefined) : [];
};

/** The batch id the first progress line names, and its recording in the repository. */
const batchOf = (stderr: string, repo: string) => {
  const id = /batch (\S+): \d+ task/.exec(stderr)?.[1];
  return id === undefined
    ? undefined
    : { id, recording: join(repo, '.git', 'ralph', 'batches', id, 'batch.jsonl') };
};

/** Waits until one run waits for an answer; its id. */
const theQuestion = async (stateDir: string): Promise<string> =>
  (
    await waitUntil(() => {
      const runs = waitingRuns(stateDir);
      return runs.length === 1 ? runs : undefined;
    }, 'the question')
  )[0] as string;

/** A one-task batch whose task asks, SIGKILLed once its question waits: what a resume needs, and the run that waits. */
async function killedWhileWaiting() {
  const { repo, tasksFile, env, stateDir } = askScene([]);
  const args = ['batch', tasksFile, '--agent-command', AGENT, '--trust-tasks', '--ask'];
  const batch = spawnRalph(args, { cwd: repo, env });
  const { id, recording } = await waitUntil(() => batchOf(batch.stderrSoFar(), repo), 'the batch to start');
  const runId = await theQuestion(stateDir);
  batch.child.kill('SIGKILL');
  await batch.finished;
  return { repo, env, stateDir, args, id, recording, runId };
}

describe('ralph batch --ask', () => {
  test('a blocked task waits without its slot: the others land meanwhile, then an answer lets it finish and land', async () => {
    const { repo, tasksFile, env, stateDir } = askScene(['b', 'c']);
    // One slot: b and c can run only once the asking task gave it back.
    const batch = spawnRalph(
      ['batch', tasksFile, '--agent-command', AGENT, '--trust-tasks', '--parallel', '1', '--ask'],
      { cwd: repo, env },
    );
    const { id, recording } = await waitUntil(() => batchOf(batch.stderrSoFar(), repo), 'the batch to start');
    const statuses = await waitUntil(() => {
      const now = recordedStatuses(recording);
      return now.b === 'landed' && now.c === 'landed' ? now : undefined;
    }, 'b and c to land');
    expect(statuses.asker).toBe('awaiting-answer');
    const runId = await theQuestion(stateDir);
    const stderr = batch.stderrSoFar();
    expect(stderr).toContain(`ralph batch: asker: Round 1 is blocked and asks: ${QUESTION}`);
    expect(stderr).toContain(`ralph batch: asker: run ${runId} waits up to 1d for an answer`);
    expect(stderr).toContain(`ralph batch: asker: Answer with: ralph answer ${runId} "your answer"`);

    const status = await ralph(['status', id], { cwd: repo, env });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`batch ${id} on ralph/batch-${id}: running`);
    expect(status.stdout).toMatch(
      new RegExp(`^asker: waiting for an answer: run ${runId}, round 1, asked`, 'm'),
    );
    expect(status.stdout).toContain(`  Round 1 is blocked and asks: ${QUESTION}`);
    expect(status.stdout).toContain(`  Answer with: ralph answer ${runId} "your answer"`);
    expect(status.stdout).toMatch(/^b: landed on /m);

    leaveAnswer(runId, { kind: 'answer', text: 'postgres 16', by: 'test' }, stateDir);
    const done = await batch.finished;
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(done.stderr).toContain("ralph batch: asker: round 1's blocker was answered (by test)");
    expect(done.stdout).toMatch(/^asker: landed$/m);
    const target = `ralph/batch-${id}`;
    expect(gitIn(repo, 'show', `${target}:answer.txt`)).toBe('postgres 16');
    expect(gitIn(repo, 'show', `${target}:b.txt`)).toBe('from b');
    expect(waitingRuns(stateDir)).toEqual([]);
    const after = await ralph(['status', id], { cwd: repo, env });
    expect(after.stdout).toContain(`batch ${id} on ${target}: settled`);
    expect(after.stdout).toMatch(/^asker: landed on /m);
  });

  test('with --notify, a waiting task sends run.question with its question and how to answer', async () => {
    const hook = await startReceiver();
    try {
      const { repo, tasksFile, env, stateDir } = askScene([]);
      const batch = spawnRalph(
        ['batch', tasksFile, '--agent-command', AGENT, '--trust-tasks', '--ask', '--notify', hook.url],
        { cwd: repo, env },
      );
      const runId = await theQuestion(stateDir);
      const sent = await waitUntil(
        () =>
          hook.requests
            .map((request) => JSON.parse(request.body))
            .find((body) => body.event === 'run.question'),
        'the run.question notification',
      );
      expect(sent).toMatchObject({ event: 'run.question', runId, question: QUESTION, round: 1 });
      expect(sent.text).toContain(`ralph answer ${runId}`);
      leaveAnswer(runId, { kind: 'answer', text: 'postgres 16' }, stateDir);
      const done = await batch.finished;
      expect(done.code, done.stdout + done.stderr).toBe(0);
    } finally {
      await hook.close();
    }
  });

  test('a batch killed while a task waits: ralph status says it stopped, with the question and how to go on', async () => {
    const { repo, env, id, recording, runId } = await killedWhileWaiting();
    const status = await ralph(['status', recording], { cwd: repo, env });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`batch ${id} on ralph/batch-${id}: stopped before it settled`);
    expect(status.stdout).toContain(
      `asker: run ${runId} was waiting for an answer to round 1's blocker when its batch stopped`,
    );
    expect(status.stdout).toContain(`  Round 1 is blocked and asks: ${QUESTION}`);
  });

  test('a batch killed while a task waits takes the answer left meanwhile when it resumes', async () => {
    const { repo, env, stateDir, args, id, recording, runId } = await killedWhileWaiting();
    leaveAnswer(runId, { kind: 'answer', text: 'sqlite' }, stateDir);
    const resumed = await ralph([...args, '--resume', recording], { cwd: repo, env });
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/^asker: landed$/m);
    expect(gitIn(repo, 'show', `ralph/batch-${id}:answer.txt`)).toBe('sqlite');
    expect(waitingRuns(stateDir)).toEqual([]);
  });

  test('given up on, the task ends blocked at once and says a person chose not to answer', async () => {
    const { repo, tasksFile, env, stateDir } = askScene([]);
    const batch = spawnRalph(['batch', tasksFile, '--agent-command', AGENT, '--trust-tasks', '--ask'], {
      cwd: repo,
      env,
    });
    leaveAnswer(await theQuestion(stateDir), { kind: 'give-up' }, stateDir);
    const done = await batch.finished;
    expect(done.code, done.stdout + done.stderr).toBe(1);
    expect(done.stdout).toContain(
      `asker: failed: blocked: ${QUESTION} (A person chose not to answer round 1's blocker; the run ended blocked.)`,
    );
  });

  test('cancelled while a task waits: the batch ends at once, the task cancelled and its question gone', async () => {
    const { repo, tasksFile, env, stateDir } = askScene([]);
    const batch = spawnRalph(['batch', tasksFile, '--agent-command', AGENT, '--trust-tasks', '--ask'], {
      cwd: repo,
      env,
    });
    await theQuestion(stateDir);
    batch.child.kill('SIGINT');
    const done = await batch.finished;
    expect(done.code, done.stdout + done.stderr).toBe(130);
    expect(done.stdout).toMatch(/^asker: cancelled/m);
    expect(waitingRuns(stateDir)).toEqual([]);
  });

  test('unanswered until --wait-for-answers runs out: the task ends blocked and the batch says why', async () => {
    const { repo, tasksFile, env, stateDir } = askScene(['b']);
    const done = await ralph(
      ['batch', tasksFile, '--agent-command', AGENT, '--trust-tasks', '--wait-for-answers', '1s'],
      { cwd: repo, env },
    );
    expect(done.code, done.stdout + done.stderr).toBe(1);
    expect(done.stdout).toContain(
      `asker: failed: blocked: ${QUESTION} (Nobody answered round 1's blocker within 1s; the run ended blocked.)`,
    );
    expect(done.stdout).toMatch(/^b: landed$/m);
    expect(waitingRuns(stateDir)).toEqual([]);
  });

  test.skipIf(!hasScript)('in a terminal the live line counts the task waiting for an answer', () => {
    const { repo, tasksFile, env } = askScene(['b']);
    const args = ['batch', tasksFile, '--agent-command', AGENT, '--trust-tasks', '--parallel', '1'];
    const { stdout: screen, status } = spawnSync(
      'script',
      [
        '-qfec',
        quote([process.execPath, CLI, ...args, '--wait-for-answers', '1s', '--cwd', repo]),
        '/dev/null',
      ],
      { encoding: 'utf8', env: { ...env, TERM: 'xterm' } },
    );
    expect(status, screen).toBe(1);
    // The asking task gave its one slot to b: one running, one waiting for an answer, drawn below the question.
    expect(screen).toContain(`\r\x1b[2Kralph batch: asker: Round 1 is blocked and asks: ${QUESTION}`);
    expect(screen).toContain('\r\x1b[2Kralph batch: 1 running · 1 waiting for an answer');
  });
});
