import { describe, expect, it } from 'vitest';
import { runSandboxText, SUBMIT_SANDBOX_ENV_REFUSED } from '../../src/contract/fleet-sandbox-messages.js';

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

describe('ralph submit refuses the sandbox settings that are the worker’s', () => {
  it('says so word for word, naming the worker options that set them', () => {
    expect(SUBMIT_SANDBOX_ENV_REFUSED).toBe(
      "ralph submit --sandbox-env, --sandbox-hide: the variables a sandboxed agent keeps and the paths it must not see are the worker's, so they are the worker's to choose (ralph worker --sandbox --sandbox-env NAME --sandbox-hide PATH); nothing was submitted",
    );
  });
});
