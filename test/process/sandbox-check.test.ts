import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RalphError } from '../../src/contract/errors.js';
import {
  sandboxBwrapMissing,
  sandboxCannotStart,
  sandboxLinuxOnly,
} from '../../src/contract/sandbox-messages.js';
import { assertSandboxAvailable, bwrapProgram, sandboxProblem } from '../../src/process/sandbox-check.js';
import { NO_SANDBOX_PLATFORM, tempDir } from '../support/sandbox.js';
import { rejection } from '../support/tool.js';

/** A bubblewrap that cannot create its namespaces, as where unprivileged user namespaces are off. */
function deniedBwrap(): string {
  const program = join(tempDir('ralph-fake-bwrap-'), 'bwrap');
  writeFileSync(
    program,
    '#!/bin/sh\necho "bwrap: some warning first" >&2\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n',
    { mode: 0o755 },
  );
  return program;
}

describe('bwrapProgram', () => {
  it('is RALPH_BWRAP when set, else bwrap on PATH', () => {
    expect(bwrapProgram({ RALPH_BWRAP: '/opt/bin/bwrap' })).toBe('/opt/bin/bwrap');
    expect(bwrapProgram({ RALPH_BWRAP: '' })).toBe('bwrap');
    expect(bwrapProgram({})).toBe('bwrap');
  });
});

describe.skipIf(NO_SANDBOX_PLATFORM !== undefined)('sandboxProblem on Linux', () => {
  it('says how to install bubblewrap when the program is missing', async () => {
    const missing = join(tempDir('ralph-no-bwrap-'), 'bwrap');
    expect(await sandboxProblem({ RALPH_BWRAP: missing })).toBe(sandboxBwrapMissing(missing));
  });

  it("says why when bubblewrap cannot create its namespaces, with bubblewrap's last word", async () => {
    expect(await sandboxProblem({ RALPH_BWRAP: deniedBwrap() })).toBe(
      sandboxCannotStart('bwrap: setting up uid map: Permission denied'),
    );
  });

  it('is null where the real bubblewrap starts a sandbox', async () => {
    expect(await sandboxProblem({})).toBeNull();
  });

  it('assertSandboxAvailable refuses with the problem, and passes where a sandbox starts', async () => {
    const missing = join(tempDir('ralph-no-bwrap-'), 'bwrap');
    const error = await rejection(assertSandboxAvailable({ RALPH_BWRAP: missing }));
    expect(error).toBeInstanceOf(RalphError);
    expect(error).toMatchObject({ code: 'refused', message: sandboxBwrapMissing(missing) });
    await expect(assertSandboxAvailable({})).resolves.toBeUndefined();
  });
});

describe('sandboxProblem elsewhere', () => {
  const platform = Object.getOwnPropertyDescriptor(process, 'platform') as PropertyDescriptor;
  afterEach(() => {
    Object.defineProperty(process, 'platform', platform);
  });

  it('says the sandbox is Linux-only, whatever bubblewrap there is', async () => {
    Object.defineProperty(process, 'platform', { ...platform, value: 'darwin' });
    expect(await sandboxProblem({ RALPH_BWRAP: deniedBwrap() })).toBe(sandboxLinuxOnly('darwin'));
  });
});
