import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RalphReport } from '../../../src/index.js';
import { OWN_PID_NAMESPACE } from '../support/peer-pid.js';
import { call, inOrder, say } from '../support/responses-server.js';
import { codexWorld, outputText, reportText, toolOutputs } from './harness.js';

const completeReport: RalphReport = {
  status: 'complete',
  summary: 'note.txt written from inside both sandboxes',
  evidence: ['note.txt holds "written in the sandbox"'],
  nextSteps: [],
  blocker: null,
};

describe('ralph run --agent codex --sandbox: codex runs its own bubblewrap sandbox inside ralph’s', () => {
  it('codex’s shell writes the workspace and nothing else; its helper is found; the round completes', async () => {
    const world = await codexWorld(
      inOrder(
        call('exec_command', {
          cmd: `printf 'written in the sandbox\\n' > note.txt; echo "tmp=$TMPDIR"; touch /etc/ralph-codex-probe`,
        }),
        say(reportText(completeReport)),
      ),
    );
    // The tier's provider reads its key from a variable of its own (config.toml's env_key), which is none of the
    // preset's OPENAI_*/CODEX_* names: like a user's, it has to be let in.
    const out = await world.ralphRun(
      'Write note.txt',
      '--json',
      '--sandbox',
      '--sandbox-env',
      'RALPH_TEST_CODEX_KEY',
    ).finished;

    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout).result).toEqual({ status: 'complete', rounds: 1, report: completeReport });
    expect(readFileSync(join(world.workspace, 'note.txt'), 'utf8')).toBe('written in the sandbox\n');
    // Every model request came from inside the sandbox: a PID namespace other than this test's.
    expect(world.server.callerNamespaces.length).toBeGreaterThan(0);
    expect(
      world.server.callerNamespaces.filter((ns) => ns === undefined || ns === OWN_PID_NAMESPACE),
    ).toEqual([]);
    // CODEX_HOME lies in /tmp, so codex got a TMPDIR in the round's folder and made its helper aliases: its
    // sandbox re-entered `codex-linux-sandbox` (by that name, where the system's bubblewrap lacks --argv0).
    expect(out.stderr).not.toContain('could not create PATH aliases');
    const shell = outputText(toolOutputs(world.server.responsesCall(1))[0]?.output);
    expect(shell).not.toContain('codex-linux-sandbox');
    expect(shell).toMatch(/tmp=\/\S*ralph-round-[^/]+\/codex-tmp\n/);
    expect(shell).toMatch(/touch: cannot touch '\/etc\/ralph-codex-probe': Read-only file system/);
  });
});
