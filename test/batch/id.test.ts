import { describe, expect, test } from 'vitest';
import { newBatchId } from '../../src/batch/id.js';
import { idProblem } from '../../src/contract/batch-tasks.js';

describe('a new batch id', () => {
  test('is the time and a random part, with no dot, and keeps the rules every id read back keeps', () => {
    const id = newBatchId();
    expect(id).toMatch(/^\d{8}-\d{4}-[0-9a-f]{6}$/);
    expect(idProblem(id)).toBeNull();
    expect(newBatchId()).not.toBe(id);
  });
});
