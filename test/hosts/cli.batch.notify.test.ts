import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, test } from 'vitest';
import { notificationSchema } from '../../src/notify/notification.js';
import { ralph } from '../fixtures/cli-agents/harness.js';
import { tempFolder, tempRepo } from '../support/git-repo.js';
import { type NotifyReceiver, startReceiver } from '../support/notify-receiver.js';

const AGENT = quote([
  process.execPath,
  fileURLToPath(new URL('../fixtures/batch-agents/edit-agent.mjs', import.meta.url)),
]);

const receivers: NotifyReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

describe('ralph batch --notify: a message when a task needs review', () => {
  test('two tasks editing the same lines: the one that cannot land is notified, with the batch, the task and its line', async () => {
    const hook = await startReceiver();
    receivers.push(hook);
    const repo = tempRepo({ 'shared.txt': 'base\n' });
    const side = tempFolder('ralph-batch-side-');
    const tasksFile = join(side, 'tasks.json');
    writeFileSync(
      tasksFile,
      JSON.stringify([
        { id: 'left', objective: 'write shared.txt left' },
        { id: 'right', objective: 'write shared.txt right' },
      ]),
    );
    const run = await ralph(
      ['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, '--notify', hook.url],
      {
        cwd: repo,
        env: { ...process.env, BATCH_AGENT_LOG: join(side, 'agents.log') },
      },
    );

    expect(run.code, run.stdout + run.stderr).toBe(1);
    const other = /^(left|right): needs-review/m.exec(run.stdout)?.[1];
    const batchId = /recording (\S+)/.exec(run.stdout)?.[1]?.split('/').at(-2);
    const notes = hook.accepted().map((body) => notificationSchema.parse(body));
    expect(notes).toEqual([
      {
        source: 'ralph',
        event: 'batch.task-needs-review',
        runId: `${batchId}/${other}`,
        status: 'needs-review',
        text: `${other}: needs review: conflict in shared.txt`,
        link: /recording (\S+);/.exec(run.stdout)?.[1],
        batchId,
        taskId: other,
        at: expect.any(String),
      },
    ]);
  }, 60_000);
});
