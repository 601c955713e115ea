import { describe, expect, it } from 'vitest';
import { progressOptionsFor } from '../../src/hosts/cli/progress.js';

const terminal = { isTTY: true };
const pipe = { isTTY: false };
const xterm = { TERM: 'xterm-256color' };

describe('ralph run colours its progress as Node itself would (tty.WriteStream#hasColors)', () => {
  it.each([
    ['a colour terminal', xterm, { live: true, color: true }],
    ['NO_COLOR', { ...xterm, NO_COLOR: '1' }, { live: true, color: false }],
    ['NO_COLOR set but empty', { ...xterm, NO_COLOR: '' }, { live: true, color: false }],
    ['NODE_DISABLE_COLORS', { ...xterm, NODE_DISABLE_COLORS: '1' }, { live: true, color: false }],
    ['FORCE_COLOR=0', { ...xterm, FORCE_COLOR: '0' }, { live: true, color: false }],
    ['CI=true (Node: two colours on an unknown CI)', { ...xterm, CI: 'true' }, { live: true, color: false }],
    ['FORCE_COLOR over NO_COLOR', { ...xterm, NO_COLOR: '1', FORCE_COLOR: '1' }, { live: true, color: true }],
    ['TERM=dumb: no live line, no colours', { TERM: 'dumb' }, { live: false, color: false }],
    [
      'TERM=dumb with FORCE_COLOR: coloured lines, still not live',
      { TERM: 'dumb', FORCE_COLOR: '1' },
      { live: false, color: true },
    ],
  ])('on a terminal under %s', (_, env, expected) => {
    expect(progressOptionsFor(terminal, env)).toEqual(expected);
  });

  it.each([
    ['by default', xterm, { live: false, color: false }],
    ['under FORCE_COLOR', { ...xterm, FORCE_COLOR: '1' }, { live: false, color: true }],
    ['under FORCE_COLOR=0', { ...xterm, FORCE_COLOR: '0' }, { live: false, color: false }],
  ])('on a pipe or a log %s', (_, env, expected) => {
    expect(progressOptionsFor(pipe, env)).toEqual(expected);
  });
});
