import type { Command } from 'commander';
import { DEFAULT_ANSWER_WAIT_MS } from '../../contract/answers.js';
import { parseDuration } from '../../contract/duration.js';

/** The options of `ralph submit` that make a blocked round wait for a person's answer. */
export interface SubmitAskOptions {
  ask?: boolean;
  waitForAnswers?: string;
}

/** Adds `--ask` and `--wait-for-answers` to `ralph submit`. */
export function addSubmitAskOptions(command: Command): Command {
  return command
    .option('--ask', 'a blocked round waits (up to 24h) for a person\'s answer: ralph answer <run-id> "…"')
    .option('--wait-for-answers <duration>', 'as --ask, waiting up to this long (e.g. 2h)');
}

/** How long the run waits for an answer (ms), or undefined without `--ask` (blocked is then terminal). */
export function askWaitMs(options: SubmitAskOptions): number | undefined {
  if (options.waitForAnswers !== undefined)
    return parseDuration(options.waitForAnswers, '--wait-for-answers');
  return options.ask === true ? DEFAULT_ANSWER_WAIT_MS : undefined;
}
