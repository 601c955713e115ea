/** The texts of the fleet's sandbox: a submitted run's ask for one, checked on the worker that takes it. */

/** Refusal: a run's stored `sandbox` field is not what `ralph submit --sandbox` writes (a crafted or damaged row). */
export function fleetSandboxAskRefused(workerId: string, problem: string): string {
  return `ralph fleet: worker ${workerId} refuses the run's sandbox setting: ${problem}. Nothing was started`;
}

/** Refusal: `ralph submit --sandbox-env`: the variables a sandboxed agent keeps come from the worker's environment. */
export const SUBMIT_SANDBOX_ENV_REFUSED =
  "ralph submit --sandbox-env: the variables a sandboxed agent keeps come from the worker's environment, so they are " +
  "the worker's to choose (ralph worker --sandbox --sandbox-env NAME); nothing was submitted";
