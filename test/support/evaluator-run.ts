import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { type Finished, makeWorkspace, PLAN_AGENT_COMMAND, ralph } from '../fixtures/cli-agents/harness.js';

/** The evaluator that rejects the first completion it checks and accepts the rest, as an `--evaluator-command`. */
export const REJECTS_ONCE_EVALUATOR = quote([
  process.execPath,
  fileURLToPath(new URL('../fixtures/cli-agents/rejects-once-evaluator.mjs', import.meta.url)),
]);

/** The objective of an evaluated run. */
export const EVALUATED_OBJECTIVE = 'Write add.js with a test';

/** A `ralph run` with the evaluator, as it ended: what it printed, its workspace and where it kept its files. */
export interface EvaluatedRun {
  finished: Finished;
  /** The run's workspace (the plan agent's). */
  workspace: string;
  /** A folder of the test's, outside the workspace: the evaluator's run count, the recording if asked. */
  folder: string;
  cleanup(): Promise<void>;
}

/**
 * `ralph run` of the plan agent, whose every round reports complete, judged by the evaluator that rejects once then
 * accepts (`--max-rounds 3`): with `edits`, the evaluator writes that file in the workspace, which fails the run.
 * `extra` goes on the command line (`--record <file>`, `--notify …`), `env` into the process environment.
 */
export async function evaluatedRun(
  options: { extra?: (folder: string) => string[]; env?: NodeJS.ProcessEnv; edits?: string } = {},
): Promise<EvaluatedRun> {
  const workspace = await makeWorkspace(['complete']);
  const folder = await mkdtemp(join(tmpdir(), 'ralph-evaluated-'));
  const finished = await ralph(
    [
      'run',
      EVALUATED_OBJECTIVE,
      '--max-rounds',
      '3',
      '--agent-command',
      PLAN_AGENT_COMMAND,
      '--evaluator-command',
      REJECTS_ONCE_EVALUATOR,
      '--cwd',
      workspace.dir,
      ...(options.extra?.(folder) ?? []),
    ],
    {
      env: {
        ...(options.env ?? process.env),
        EVALUATOR_COUNT: join(folder, 'evaluator-runs'),
        ...(options.edits === undefined ? {} : { EVALUATOR_EDITS: options.edits }),
      },
    },
  );
  return {
    finished,
    workspace: workspace.dir,
    folder,
    async cleanup() {
      await workspace.cleanup();
      await rm(folder, { recursive: true, force: true });
    },
  };
}
