import { fromPromise } from 'xstate';
import type { VerifyOutcome } from '../contract/types.js';
import type { FingerprintRequest, RoundRef, VerifyRequest } from '../machines/ralph.machine.js';
import { fingerprintWorkspace } from '../workspace/workspace-fingerprint.js';
import { ownOutputFiles } from './own-output.js';
import { runVerifyCommand } from './verify-command.js';

/** Each run's verify command while it runs or stops, by run id: what `awaitVerifyStopped` waits on. */
const runningVerifies = new Map<string, Promise<unknown>>();

/**
 * Where a durable host records what the guard rails observed, so that a run replayed elsewhere (a fleet run taken
 * over by another worker) decides as it did: `step` runs `body` once and records its result, and on a replay returns
 * the recorded result without running it (a verify command is not run again, a workspace is not fingerprinted again).
 */
export interface RalphJournal {
  step<T>(name: string, body: () => Promise<T>): Promise<T>;
}

/** Runs `body` through the journal when there is one, under `name`. */
const journaled = <T>(journal: RalphJournal | undefined, name: string, body: () => Promise<T>): Promise<T> =>
  journal === undefined ? body() : journal.step(name, body);

/**
 * The actors of the guard rails. They keep nothing in the machine's context: a running verify command is found by
 * its run id, so one set of actors serves every run of an engine. Leaving `verifying` aborts `runVerify`, which
 * stops the command's process group; `awaitVerifyStopped` then settles once that group is gone.
 */
export function createGuardRailActors(journal?: RalphJournal) {
  const runVerify = fromPromise<VerifyOutcome, VerifyRequest>(async ({ input, signal }) => {
    const running = journaled(journal, `verify-${input.round}`, () => runVerifyCommand(input, { signal }));
    runningVerifies.set(input.runId, running);
    // The entry goes once the command's group is gone, however it ended: an aborted one is what
    // awaitVerifyStopped waits for until then, and a run dropped without it leaves nothing behind.
    const forget = () => {
      if (runningVerifies.get(input.runId) === running) runningVerifies.delete(input.runId);
    };
    running.then(forget, forget);
    return running;
  });

  const awaitVerifyStopped = fromPromise<void, RoundRef>(async ({ input }) => {
    // A stopped command rejects with the abort's reason; all that matters here is that its group is gone.
    await runningVerifies.get(input.runId)?.catch(() => {});
  });

  // What ralph itself writes (its recording, its redirected stdout and stderr) is not the agents' work.
  const fingerprint = fromPromise<string, FingerprintRequest>(({ input, signal }) =>
    journaled(journal, `fingerprint-${input.round}`, () =>
      fingerprintWorkspace(input.cwd, { signal, ignore: ownOutputFiles() }),
    ),
  );

  return { runVerify, awaitVerifyStopped, fingerprintWorkspace: fingerprint };
}
