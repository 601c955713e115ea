import { afterEach, describe, expect, it } from 'vitest';
import { notificationSchema } from '../../src/notify/notification.js';
import { type NotifyReceiver, startReceiver } from '../support/notify-receiver.js';
import { ralph, startWorker, stopWorker, submitRun, useFleetScene } from './harness.js';

const scene = useFleetScene();

const receivers: NotifyReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(): Promise<NotifyReceiver> {
  const started = await startReceiver();
  receivers.push(started);
  return started;
}

describe("a fleet run's notifications", () => {
  it("ralph submit --notify-command is refused (exit 2): a command on the worker is its operator's to choose", async () => {
    const ws = await scene.workspace();
    const out = await submitRun('postgres://ralph@127.0.0.1:1/none', ws.dir, {
      extra: ['--notify-command', 'tee /tmp/x'],
    });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(
      "ralph submit --notify-command: notification commands and their timeout are the worker's to choose " +
        '(ralph worker --notify-command); nothing was submitted',
    );
  });

  it("a worker's --notify gets every run it takes; a submitted run's --notify only from a worker with --allow-notify", async () => {
    const url = scene.databaseFor('notifying');
    const ws = await scene.workspace();
    const [operator, submitter] = [await receiver(), await receiver()];

    const careful = await startWorker(url, 'careful', { extra: ['--notify', operator.url] });
    scene.processes.push(careful);
    const first = (await submitRun(url, ws.dir, { extra: ['--notify', submitter.url] })).stdout.trim();
    const waited = await ralph(['wait', first, '--database-url', url]);
    expect(waited.code, waited.stderr).toBe(0);
    const [ended] = (await operator.untilAccepted(1)).map((body) => notificationSchema.parse(body));
    expect(ended).toMatchObject({ event: 'run.ended', runId: first, status: 'complete' });
    expect(`${ended?.text}\n`).toBe(waited.stdout);
    expect(submitter.requests).toEqual([]);
    expect(careful.stderr()).toContain(
      `ralph worker careful: ${first}: its 1 notify URL(s) are not sent to (start the worker with --allow-notify`,
    );
    await stopWorker(careful);

    const trusting = await startWorker(url, 'trusting', { extra: ['--allow-notify'] });
    scene.processes.push(trusting);
    const second = (await submitRun(url, ws.dir, { extra: ['--notify', submitter.url] })).stdout.trim();
    expect((await ralph(['wait', second, '--database-url', url])).code).toBe(0);
    const notes = (await submitter.untilAccepted(1)).map((body) => notificationSchema.parse(body));
    expect(notes).toMatchObject([{ event: 'run.ended', runId: second, status: 'complete' }]);
    // The worker's own targets went with the first worker.
    expect(operator.accepted()).toHaveLength(1);
    await stopWorker(trusting);
  }, 120_000);
});
