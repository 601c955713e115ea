import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import {
  BatchRecorder,
  type BatchRecordingHeader,
  readBatchRecording,
} from '../../src/inspect/batch-recording.js';
import { tempFolder } from '../support/git-repo.js';

const header: BatchRecordingHeader = {
  kind: 'ralph-batch',
  formatVersion: 1,
  batchId: 'b1',
  startedAt: '2026-12-04T00:00:00.000Z',
  target: 'ralph/batch-b1',
  start: 'abc',
  parallel: 2,
  tasks: [{ id: 'a', objective: 'write a.txt a', after: [], verify: 'npm test' }],
  verifyTimeoutMs: 1_000,
  runs: { a: 'runs/a.jsonl' },
  process: { pid: 1 },
};

test('a cancelled batch resumed is not settled until it settles again; a --land names the process that lands', () => {
  const path = join(tempFolder('ralph-batch-recording-'), 'batch.jsonl');
  const first = new BatchRecorder(path, header);
  first.task({ id: 'a', status: 'cancelled', note: 'the batch was cancelled', conflicts: [] });
  first.settled('interrupted');
  first.close();
  expect(readBatchRecording(readFileSync(path, 'utf8')).settled?.cancelReason).toBe('interrupted');
  const resumed = new BatchRecorder(path, null);
  resumed.resumed({ pid: 2 });
  const read = readBatchRecording(readFileSync(path, 'utf8'));
  expect(read.settled).toBeNull();
  expect(read.process).toEqual({ pid: 2 });
  resumed.task({ id: 'a', status: 'needs-review', note: 'conflict in a.txt', conflicts: ['a.txt'] });
  resumed.settled(null);
  resumed.close();
  const landing = new BatchRecorder(path, null);
  landing.landing({ pid: 3 }, 'a');
  landing.task({ id: 'a', status: 'landed', note: null, conflicts: [] });
  landing.close();
  const landed = readBatchRecording(readFileSync(path, 'utf8'));
  expect(landed.settled?.cancelReason).toBeNull();
  expect(landed.process).toEqual({ pid: 3 });
  expect(landed.tasks.get('a')?.status).toBe('landed');
  expect(landed.header.tasks[0]?.verify).toBe('npm test');
});
