import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { sandboxBwrapMissing, sandboxCannotStart } from '../../src/contract/sandbox-messages.js';
import { DEMO_OBJECTIVE } from '../../src/hosts/cli/demo.js';
import { SANDBOX_SETTING_WITHOUT_SANDBOX } from '../../src/hosts/cli/sandbox-options.js';
import { ralph } from '../fixtures/cli-agents/harness.js';
import { agentCommand, cleanEnv, useScratch } from '../support/processes.js';
import { NO_SANDBOX_PLATFORM, tempDir } from '../support/sandbox.js';

const s = useScratch();

/** `ralph run` of an agent that logs its pid when it starts: a refused run must log none. */
const runOf = (...extra: string[]) => [
  'run',
  'Ship it.',
  '--agent-command',
  quote(agentCommand('report-file.mjs')),
  '--cwd',
  s.workspace,
  ...extra,
];

describe.skipIf(NO_SANDBOX_PLATFORM !== undefined)('ralph run --sandbox refuses before round 1', () => {
  it('where bubblewrap is missing: exit 2, how to install it, and no child', async () => {
    const missing = join(s.logs, 'no-bwrap-here');

    const out = await ralph(runOf('--sandbox'), {
      env: cleanEnv({ FIXTURE_PID_LOG: s.pidLog, RALPH_BWRAP: missing }),
    });

    expect(out.code).toBe(2);
    expect(out.stderr).toContain(sandboxBwrapMissing(missing));
    expect(out.stdout).toBe('');
    expect(await s.pids()).toEqual([]);
  });

  it('where bubblewrap cannot create its namespaces: exit 2, why, and no child', async () => {
    const bwrap = join(s.logs, 'bwrap');
    writeFileSync(bwrap, '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n', {
      mode: 0o755,
    });

    const out = await ralph(runOf('--sandbox'), {
      env: cleanEnv({ FIXTURE_PID_LOG: s.pidLog, RALPH_BWRAP: bwrap }),
    });

    expect(out.code).toBe(2);
    expect(out.stderr).toContain(sandboxCannotStart('bwrap: setting up uid map: Permission denied'));
    expect(await s.pids()).toEqual([]);
  });
});

describe('the sandbox settings without --sandbox', () => {
  it.each([
    ['--sandbox-network none', ['--sandbox-network', 'none']],
    ['--sandbox-env NAME', ['--sandbox-env', 'ANTHROPIC_API_KEY']],
    ['--sandbox-hide PATH', ['--sandbox-hide', '/etc/hostname']],
  ])('%s alone is refused with exit 2, never a run outside the sandbox', async (_, flags) => {
    const out = await ralph(runOf(...flags), { env: cleanEnv({ FIXTURE_PID_LOG: s.pidLog }) });

    expect(out.code).toBe(2);
    expect(out.stderr).toContain(SANDBOX_SETTING_WITHOUT_SANDBOX);
    expect(await s.pids()).toEqual([]);
  });
});

describe.skipIf(NO_SANDBOX_PLATFORM !== undefined)('the honest example agent in the sandbox', () => {
  it('does the demo workspace’s tasks with --sandbox --sandbox-network none, and its --verify passes', async () => {
    const workspace = tempDir('ralph-sandbox-demo-');
    cpSync(fileURLToPath(new URL('../../examples/demo-workspace/', import.meta.url)), workspace, {
      recursive: true,
    });

    const out = await ralph(
      [
        'run',
        DEMO_OBJECTIVE,
        '--agent',
        'example',
        '--cwd',
        workspace,
        '--sandbox',
        '--sandbox-network',
        'none',
        '--verify',
        // The pid of a shell in a PID namespace of its own is small: the verify command ran in the sandbox too.
        `sh -c 'test $$ -lt 10 && grep -qx "2 files, 6 lines" SUMMARY.txt'`,
      ],
      { env: cleanEnv() },
    );

    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(
      /^Ralph complete: the worker reported the objective complete after 3 rounds, and the verify command .* confirmed it \(exit 0\)\./,
    );
    const tasks = readFileSync(join(workspace, 'TASKS.md'), 'utf8');
    expect(tasks.match(/^- \[x\] /gm)).toHaveLength(3);
    expect(existsSync(join(workspace, 'hello.txt'))).toBe(true);
  });
});
