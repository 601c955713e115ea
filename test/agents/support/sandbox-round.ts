import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Finished } from '../../fixtures/cli-agents/harness.js';
import { OWN_PID_NAMESPACE } from './peer-pid.js';
import { completeReport } from './round-reports.js';

/** What the agent of a sandboxed round writes into note.txt in its workspace. */
export const SANDBOX_NOTE = 'written in the sandbox\n';

/**
 * Checks a `ralph run --sandbox --json` whose one round wrote SANDBOX_NOTE to note.txt and reported `completeReport`,
 * and that every request the scripted model got came from a process in a PID namespace other than this test's: the
 * agent ran inside the sandbox (without `--sandbox` it runs in this one).
 */
export function expectSandboxedRound(
  out: Finished,
  workspace: string,
  callerNamespaces: readonly (string | undefined)[],
): void {
  expect(out.code, out.stderr).toBe(0);
  const envelope = JSON.parse(out.stdout);
  expect(envelope.result).toEqual({ status: 'complete', rounds: 1, report: completeReport });
  expect(envelope.agentsStarted).toBe(1);
  expect(readFileSync(join(workspace, 'note.txt'), 'utf8')).toBe(SANDBOX_NOTE);
  expect(callerNamespaces.length).toBeGreaterThan(0);
  expect(
    callerNamespaces.filter((namespace) => namespace === undefined || namespace === OWN_PID_NAMESPACE),
  ).toEqual([]);
}
