import { resolve } from 'node:path';
import type { RalphConfigInput } from '../contract/config.js';
import { isRalphError, RalphError } from '../contract/errors.js';
import { fleetSandboxAskRefused } from '../contract/fleet-sandbox-messages.js';
import { type RalphSandbox, sandboxSchema } from '../contract/sandbox.js';
import { sandboxProblem } from '../process/sandbox-check.js';
import { ralphStateFolder } from '../process/sandbox-spec.js';
import { FleetError } from './database.js';
import { sandboxedRounds } from './durable-provider.js';

/**
 * What a submitted run asks of the sandbox (`ralph submit --sandbox`, stored in its input): to run sandboxed, and
 * with `network: 'none'` without the network. It can only make a worker's sandbox stricter: a worker started with
 * `--sandbox` sandboxes every run whatever its input says, and the variables a sandbox keeps are the worker's to name.
 */
export interface FleetSandboxAsk {
  network?: 'keep' | 'none';
}

/** A worker's sandbox: the one it runs every run in (`ralph worker --sandbox`), and what any run's sandbox hides. */
export interface WorkerSandbox {
  /** Every run's sandbox on this worker; absent: only runs that ask for one are sandboxed. */
  own?: RalphSandbox;
  /** The worker's own paths no sandboxed process may see: its state folder, its URL file, ralph's state folder. */
  hide: readonly string[];
}

/** The worker's sandbox as its options give it: its own, and everything any sandbox of its runs hides. */
export function workerSandbox(
  own: RalphSandbox | undefined,
  { stateDir, privatePaths = [] }: { stateDir: string; privatePaths?: readonly string[] },
): WorkerSandbox {
  const hide = [
    ...(own?.hide ?? []),
    ralphStateFolder(),
    resolve(stateDir),
    ...privatePaths.map((path) => resolve(path)),
  ];
  const unique = [...new Set(hide)];
  return own === undefined ? { hide: unique } : { own: { ...own, hide: unique }, hide: unique };
}

/** Why a stored `sandbox` field is not an ask (anything but `{}` or `{ network: 'keep' | 'none' }`), or null. */
function askProblem(asked: unknown): string | null {
  if (typeof asked !== 'object' || asked === null || Array.isArray(asked))
    return `it is ${JSON.stringify(asked)}, not an object`;
  const { network, ...rest } = asked as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0)
    return `it names ${extra.map((key) => JSON.stringify(key)).join(', ')}, which a run cannot set`;
  if (network !== undefined && network !== 'keep' && network !== 'none')
    return `its network is ${JSON.stringify(network)}, not "keep" or "none"`;
  return null;
}

/**
 * The sandbox a run runs in on this worker: the worker's own when it has one (without the network when the run asks
 * so), else, when the run asks for one, a sandbox with the worker's defaults (no variable besides the base list and
 * the preset's); undefined when neither does. The run's `sandbox` comes from the database, which anyone who can write
 * to it fills: anything but what `ralph submit --sandbox` writes is refused (a RalphError), starting nothing.
 */
export function runSandbox(
  worker: WorkerSandbox,
  asked: unknown,
  workerId: string,
): RalphSandbox | undefined {
  if (asked === undefined) return worker.own;
  const problem = askProblem(asked);
  if (problem !== null)
    throw new RalphError({ code: 'refused', message: fleetSandboxAskRefused(workerId, problem) });
  const { network } = asked as FleetSandboxAsk;
  const base: RalphSandbox = worker.own ?? { network: 'keep', env: [], hide: [...worker.hide] };
  return network === 'none' ? { ...base, network: 'none' } : base;
}

/** A worker's own sandbox option, its defaults filled in; a FleetError (one line) when it is not one. */
export function parsedSandbox(given: RalphConfigInput['sandbox'], who: string): RalphSandbox | undefined {
  if (given === undefined) return undefined;
  const parsed = sandboxSchema.safeParse(given);
  if (!parsed.success) throw new FleetError(`${who}: the sandbox option is not one: ${parsed.error.message}`);
  return parsed.data;
}

/**
 * The sandbox of a landing's verify command and resolver loop on this worker (the worker's, or the one its run asks
 * for), or why the landing needs review instead: the run's ask is refused, or no sandbox can start here.
 */
export async function landingSandbox(
  worker: WorkerSandbox,
  asked: unknown,
  workerId: string,
): Promise<{ sandbox?: RalphSandbox; refusal: string | null }> {
  let sandbox: RalphSandbox | undefined;
  try {
    sandbox = runSandbox(worker, asked, workerId);
  } catch (error) {
    if (!isRalphError(error)) throw error;
    return { refusal: error.message };
  }
  if (sandbox === undefined) return { refusal: null };
  const problem = await sandboxProblem();
  return problem === null ? { sandbox, refusal: null } : { refusal: problem };
}

/** Whether a fleet run ran in a sandbox, as `ralph status` and the dashboard say it. */
export interface FleetRunSandbox {
  /** Its submitter asked for the sandbox. */
  asked: boolean;
  /** How many of its recorded rounds ran sandboxed (whichever worker ran each). */
  rounds: number;
}

/** A run's sandbox from whether it asked for one and its recorded steps; undefined when it asked for none and had none. */
export function runSandboxOf(
  asked: boolean,
  steps: readonly { name: string; output: unknown }[],
): FleetRunSandbox | undefined {
  const rounds = sandboxedRounds(steps);
  return asked || rounds > 0 ? { asked, rounds } : undefined;
}
