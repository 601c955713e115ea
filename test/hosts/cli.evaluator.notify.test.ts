import { afterEach, describe, expect, it } from 'vitest';
import { evaluatedCompleteLabel } from '../../src/contract/evaluator-messages.js';
import { notificationSchema } from '../../src/notify/notification.js';
import { type EvaluatedRun, evaluatedRun } from '../support/evaluator-run.js';
import { type NotifyReceiver, startReceiver } from '../support/notify-receiver.js';

// The notification of a run with an evaluator carries the result text the run printed: its label says an
// independent evaluator accepted the completion.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

describe('ralph run --evaluator-command --notify', () => {
  it('run.ended carries the evaluated label, the text the run printed', async () => {
    const hook: NotifyReceiver = await startReceiver([]);
    cleanups.push(() => hook.close());
    const run: EvaluatedRun = await evaluatedRun({ extra: () => ['--notify', hook.url] });
    cleanups.push(run.cleanup);

    expect(run.finished.code).toBe(0);
    const notes = hook.accepted().map((note) => notificationSchema.parse(note));
    expect(notes).toHaveLength(1);
    const [note] = notes;
    expect(note).toMatchObject({ event: 'run.ended', status: 'complete', rounds: 2 });
    expect(note?.text.split('\n')[0]).toBe(evaluatedCompleteLabel(2, 'command-evaluator'));
    expect(`${note?.text}\n`).toBe(run.finished.stdout);
  });
});
