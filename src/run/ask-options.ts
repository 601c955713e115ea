import { DEFAULT_ANSWER_WAIT_MS } from '../contract/answers.js';
import type { RalphConfigInput } from '../contract/config.js';
import { parseDuration } from '../contract/duration.js';

/** The options that make a blocked round ask a person (`--ask`) instead of ending the run. */
export interface AskOptions {
  ask?: boolean;
  waitForAnswers?: string;
}

/** The config the ask options set: nothing without them; a bad duration is refused (exit 2) before anything starts. */
export function askConfig(options: AskOptions): Partial<RalphConfigInput> {
  if (options.waitForAnswers !== undefined)
    return { waitForAnswersMs: parseDuration(options.waitForAnswers, '--wait-for-answers') };
  return options.ask === true ? { waitForAnswersMs: DEFAULT_ANSWER_WAIT_MS } : {};
}
