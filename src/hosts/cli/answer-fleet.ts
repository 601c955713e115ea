import type { PersonAnswer } from '../../contract/answers.js';
import { fleetAnswerSent } from '../../contract/fleet-answer-messages.js';
import { stripControlToLine } from '../../render/terminal-text.js';
import { type FleetOptions, withFleet } from './fleet-cli.js';

/**
 * `ralph answer <run-id> "text" | --give-up` of a fleet run: the answer goes to the run through the fleet's database
 * (a durable message), whether or not a worker is alive; refused (exit 1) when the run waits for no answer now, and
 * (exit 2) when the answer is not one. Exit 0 once it is sent.
 */
export function answerFleetRun(runId: string, answer: PersonAnswer, options: FleetOptions): Promise<number> {
  return withFleet(options, async (fleet) => {
    const round = await fleet.answer(runId, answer);
    process.stdout.write(`${stripControlToLine(fleetAnswerSent(runId, round, answer))}\n`);
    return 0;
  });
}
