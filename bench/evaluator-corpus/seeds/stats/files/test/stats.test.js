import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mean, median } from '../src/stats.js';

test('mean of three values', () => {
  assert.equal(mean([1, 2, 6]), 3);
});

test('median of an odd number of values', () => {
  assert.equal(median([3, 1, 2]), 2);
});

test('median of an even number of values', () => {
  assert.equal(median([4, 1, 3, 2]), 2.5);
});

test('median leaves its input alone', () => {
  const values = [3, 1, 2];
  median(values);
  assert.deepEqual(values, [3, 1, 2]);
});
