/** The texts of the fleet's sandbox: a submitted run's ask for one, checked on the worker that takes it. */

/** Refusal: a run's stored `sandbox` field is not what `ralph submit --sandbox` writes (a crafted or damaged row). */
export function fleetSandboxAskRefused(workerId: string, problem: string): string {
  return `ralph fleet: worker ${workerId} refuses the run's sandbox setting: ${problem}. Nothing was started`;
}

/** Refusal: `ralph submit --sandbox-env`: the variables a sandboxed agent keeps come from the worker's environment. */
export const SUBMIT_SANDBOX_ENV_REFUSED =
  'ralph submit --sandbox-env, --sandbox-hide: the variables a sandboxed agent keeps and the paths it must not see are ' +
  "the worker's, so they are the worker's to choose (ralph worker --sandbox --sandbox-env NAME --sandbox-hide PATH); " +
  'nothing was submitted';

/**
 * What `ralph status` and the dashboard say of a fleet run's sandbox: `sandboxed` when every recorded round ran in one,
 * how many did when some did, `sandbox asked` while none is recorded yet (`but not recorded` when rounds are, from a
 * damaged row); empty for a run that asked for none and had none.
 */
export function runSandboxText(
  sandbox: { asked: boolean; rounds: number } | null | undefined,
  roundsDone: number,
): string {
  if (sandbox === undefined || sandbox === null) return '';
  if (sandbox.rounds > 0 && sandbox.rounds >= roundsDone) return 'sandboxed';
  if (sandbox.rounds > 0) return `sandboxed in ${sandbox.rounds} of ${roundsDone} rounds`;
  return roundsDone === 0 ? 'sandbox asked' : 'sandbox asked but not recorded';
}
