import { describe, expect, it } from 'vitest';
import { normalizeConfig } from '../../src/contract/config.js';

const base = { subagentProvider: 'scripted' };

describe('the guard rails in the deployment config', () => {
  it('are all off, and absent from the normalized config, unless set', () => {
    const config = normalizeConfig(base);
    for (const key of ['roundTimeoutMs', 'maxWallTimeMs', 'verify', 'maxIdleRounds'])
      expect(Object.keys(config)).not.toContain(key);
  });

  it('take durations in ms, a verify argv with its defaults (10 minutes, 4,000 characters) and an idle limit', () => {
    expect(
      normalizeConfig({
        ...base,
        roundTimeoutMs: 1_800_000,
        maxWallTimeMs: 7_200_000,
        verify: { argv: ['npm', 'test'] },
        maxIdleRounds: 3,
      }),
    ).toMatchObject({
      roundTimeoutMs: 1_800_000,
      maxWallTimeMs: 7_200_000,
      verify: { argv: ['npm', 'test'], timeoutMs: 600_000, maxOutputChars: 4_000 },
      maxIdleRounds: 3,
    });
  });

  it.each([
    ['a round timeout of 0', { roundTimeoutMs: 0 }, 'roundTimeoutMs'],
    ['a time limit a timer cannot wait for', { maxWallTimeMs: 2 ** 31 }, 'maxWallTimeMs'],
    ['a fractional time limit', { maxWallTimeMs: 1.5 }, 'maxWallTimeMs'],
    ['a verify command with no program', { verify: { argv: [] } }, 'verify.argv'],
    ['a verify command given as one string', { verify: { argv: 'npm test' } }, 'verify.argv'],
    ['a verify timeout of 0', { verify: { argv: ['npm', 'test'], timeoutMs: 0 } }, 'verify.timeoutMs'],
    ['an unknown verify setting', { verify: { argv: ['npm'], shell: true } }, 'verify'],
    ['an idle limit of 0', { maxIdleRounds: 0 }, 'maxIdleRounds'],
    ['an idle limit over the round ceiling', { maxIdleRounds: 257 }, 'maxIdleRounds'],
  ])('refuse %s, naming the setting', (_, settings, path) => {
    expect(() => normalizeConfig({ ...base, ...settings })).toThrow(
      expect.objectContaining({ code: 'refused', message: expect.stringContaining(path) }),
    );
  });
});
