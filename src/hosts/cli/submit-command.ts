import type { AgentOptions } from './agent-options.js';
import { type FleetOptions, withFleet } from './fleet-cli.js';
import { parseNumberOption } from './numbers.js';

/** The options of `ralph submit`. */
export interface SubmitOptions extends AgentOptions, FleetOptions {
  maxRounds?: string;
}

/** `ralph submit`: enqueues a run with the agent options of `ralph run` and prints its id on stdout. */
export function submitCommand(objective: string | undefined, options: SubmitOptions): Promise<number> {
  return withFleet(options, async (fleet) => {
    const { databaseUrl: _url, maxRounds, ...agent } = options;
    const runId = await fleet.submit({
      objective,
      ...(maxRounds === undefined ? {} : { maxRounds: parseNumberOption(maxRounds) }),
      agent,
    });
    process.stdout.write(`${runId}\n`);
    return 0;
  });
}
