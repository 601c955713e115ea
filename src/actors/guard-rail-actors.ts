import { fromPromise } from 'xstate';
import type { VerifyOutcome } from '../contract/types.js';
import type { FingerprintRequest, RoundRef, VerifyRequest } from '../machines/ralph.machine.js';
import { runVerifyCommand } from '../providers/verify-command.js';
import { fingerprintWorkspace } from '../providers/workspace-fingerprint.js';
import { ownOutputFiles } from './own-output.js';

/** Each run's verify command while it runs or stops, by run id: what `awaitVerifyStopped` waits on. */
const runningVerifies = new Map<string, Promise<unknown>>();

/**
 * The actors of the guard rails. They keep nothing in the machine's context: a running verify command is found by
 * its run id, so one set of actors serves every run of an engine. Leaving `verifying` aborts `runVerify`, which
 * stops the command's process group; `awaitVerifyStopped` then settles once that group is gone.
 */
export function createGuardRailActors() {
  const runVerify = fromPromise<VerifyOutcome, VerifyRequest>(async ({ input, signal }) => {
    const running = runVerifyCommand(
      {
        argv: input.verify.argv,
        cwd: input.cwd,
        timeoutMs: input.verify.timeoutMs,
        maxOutputChars: input.verify.maxOutputChars,
        terminationGraceMs: input.terminationGraceMs,
      },
      { signal },
    );
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
    fingerprintWorkspace(input.cwd, { signal, ignore: ownOutputFiles() }),
  );

  return { runVerify, awaitVerifyStopped, fingerprintWorkspace: fingerprint };
}
