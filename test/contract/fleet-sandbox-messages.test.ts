import { describe, expect, it } from 'vitest';
import { runSandboxText } from '../../src/contract/fleet-sandbox-messages.js';

describe("what ralph status and the dashboard say of a fleet run's sandbox", () => {
  it('sandboxed, in how many rounds, asked, or nothing', () => {
    expect(runSandboxText(undefined, 3)).toBe('');
    expect(runSandboxText(null, 0)).toBe('');
    expect(runSandboxText({ asked: false, rounds: 3 }, 3)).toBe('sandboxed');
    expect(runSandboxText({ asked: true, rounds: 1 }, 3)).toBe('sandboxed in 1 of 3 rounds');
    expect(runSandboxText({ asked: true, rounds: 0 }, 0)).toBe('sandbox asked');
    expect(runSandboxText({ asked: true, rounds: 0 }, 2)).toBe('sandbox asked but not recorded');
  });
});
