import type { Command } from 'commander';

export { type AskOptions, askConfig } from '../../run/ask-options.js';

/** The help text after the options: what asking does and how a question is answered. */
export const ASK_HELP = `
Asking a person (off by default; without it a blocked round ends the run, exactly as the reference):
  --ask                      a round that reports blocked does not end the run: its blocker is put to you as a
                             question (on stderr; typed at the terminal when there is one, or with
                             ralph answer <run-id> "text" from anywhere), and the next round starts with a fresh
                             agent, the blocked report and your answer. Waits up to 24h (--wait-for-answers)
  --wait-for-answers 2h      asks (implies --ask) and waits this long; nobody answering ends the run blocked
`;

/** Adds `--ask` and `--wait-for-answers` to a command. */
export function addAskOptions(command: Command): Command {
  return command
    .option('--ask', "put a blocked round's blocker to a person and go on with the answer (waits up to 24h)")
    .option(
      '--wait-for-answers <duration>',
      'like --ask, waiting this long for an answer before the run ends blocked (e.g. 2h)',
    );
}
