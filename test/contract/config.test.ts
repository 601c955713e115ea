import { describe, expect, it } from 'vitest';
import { createProviderRegistry, createRalphTool, normalizeConfig, RalphError } from '../../src/index.js';

const providers = createProviderRegistry();

describe('the deployment config is validated and normalized when the tool is created', () => {
  it('fills in the defaults: 256 rounds, 16,384 handoff chars, 16,384 result chars, a 5 s grace', () => {
    const tool = createRalphTool({ subagentProvider: 'claude' }, { providers });
    expect(tool.config).toEqual({
      subagentProvider: 'claude',
      maxRounds: 256,
      maxHandoffChars: 16_384,
      maxResultChars: 16_384,
      terminationGraceMs: 5_000,
    });
  });

  it.each([
    ['no provider', {}],
    ['a blank provider', { subagentProvider: ' ' }],
    ['maxRounds above the 256 ceiling', { subagentProvider: 'p', maxRounds: 257 }],
    ['maxRounds of zero', { subagentProvider: 'p', maxRounds: 0 }],
    ['a fractional maxRounds', { subagentProvider: 'p', maxRounds: 1.5 }],
    ['a negative handoff cap', { subagentProvider: 'p', maxHandoffChars: -1 }],
    ['a result cap too small for the truncation marker', { subagentProvider: 'p', maxResultChars: 5 }],
    ['a negative grace', { subagentProvider: 'p', terminationGraceMs: -1 }],
    ['an unknown setting', { subagentProvider: 'p', reportSchema: {} }],
    ['not an object', 'claude'],
  ])('throws on %s', (_, config) => {
    expect(() => createRalphTool(config as never, { providers })).toThrow(RalphError);
    expect(() => normalizeConfig(config)).toThrow(/^Ralph config is invalid: /);
  });

  it("caps the verify command's kept output at 1,000,000 characters and keeps any cap from 1 up to it", () => {
    const verify = (maxOutputChars: number) => ({
      subagentProvider: 'p',
      verify: { argv: ['npm', 'test'], maxOutputChars },
    });
    expect(normalizeConfig(verify(1)).verify?.maxOutputChars).toBe(1);
    expect(normalizeConfig(verify(1_000_000)).verify?.maxOutputChars).toBe(1_000_000);
    expect(() => normalizeConfig(verify(1_000_001))).toThrow(
      'Ralph config is invalid: verify.maxOutputChars: Too big: expected number to be <=1000000',
    );
  });

  it('keeps what the deployment set', () => {
    expect(normalizeConfig({ subagentProvider: 'p', maxRounds: 3, maxResultChars: 100 })).toMatchObject({
      maxRounds: 3,
      maxResultChars: 100,
    });
  });
});
