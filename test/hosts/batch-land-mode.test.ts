import { describe, expect, it } from 'vitest';
import { landModeOf } from '../../src/hosts/cli/batch-land-mode.js';

describe('landModeOf', () => {
  it('reads --land pr as pull requests, stacked only with --stack', () => {
    expect(landModeOf('pr', undefined)).toEqual({ kind: 'pr', stack: false });
    expect(landModeOf('pr', true)).toEqual({ kind: 'pr', stack: true });
  });
  it('reads a batch id as the landing of a task fixed by hand, and no --land as the target', () => {
    expect(landModeOf('20261201-1522-a1b2c3', undefined)).toEqual({
      kind: 'fixed-task',
      batchId: '20261201-1522-a1b2c3',
    });
    expect(landModeOf(undefined, undefined)).toEqual({ kind: 'target' });
  });
  it('leaves any other word to the landing of a fixed task (it says there is no such batch), and refuses --stack without --land pr', () => {
    expect(landModeOf('nosuch', undefined)).toEqual({ kind: 'fixed-task', batchId: 'nosuch' });
    expect(() => landModeOf(undefined, true)).toThrow(/--stack needs --land pr/);
    expect(() => landModeOf('20261201-1522-a1b2c3', true)).toThrow(/--stack needs --land pr/);
  });
});
