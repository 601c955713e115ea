import type { Command } from 'commander';

export { type GuardRailOptions, guardRailConfig } from '../../run/guard-rail-options.js';

/** The help text after the options: what each guard rail does, with an example. */
export const GUARD_RAILS_HELP = `
Guard rails (all off by default; with none set a run is exactly the reference's):
  --round-timeout 30m        a round whose agent has not reported within 30 minutes is stopped (its whole
                             process group: SIGTERM, --grace-ms, SIGKILL) and the run fails as that round's
                             child failure, keeping the last good report
  --max-time 2h              no round starts after 2 hours; a round still running then is stopped, and the run
                             ends budget-limited (exit 4) with the last good report, or failed if none came yet
  --verify 'npm test'        a round that reports complete is accepted only if this command exits 0 in the
                             workspace (argv, no shell; its own process group); otherwise the next round gets
                             the report plus the command's exit status and the end of its output
  --verify-timeout 5m        how long the verify command may run before it counts as failed (default 10m)
  --max-idle-rounds 3        3 rounds in a row that report continue and leave the workspace unchanged (its git
                             state, or a hash of its files) end the run budget-limited (exit 4)
  --max-cost 5               no round starts once the rounds' agents reported $5 spent in all; the run ends
                             budget-limited (exit 4) naming the limit and what was spent. Needs an agent that
                             reports cost (claude); with any other the run is refused before anything starts
  --wait-on-limits           a round whose agent hit a usage or rate limit waits until the limit resets (plus
                             1s; with no reset time, 1m doubling up to 30m), never past --max-time, then runs
                             again with a fresh agent; the wait costs no round. Off: the run fails, its detail
                             naming the limit and when it resets
Durations: 90s, 30m, 2h, 1h30m, 1500ms, or bare seconds (90); at most 24d 20h 31m 23s 647ms.
`;

/** Adds the guard-rail options to a command. */
export function addGuardRailOptions(command: Command): Command {
  return command
    .option('--round-timeout <duration>', 'stop a round whose agent has not reported within this (e.g. 30m)')
    .option('--max-time <duration>', "the run's wall-clock budget: no round starts after it (e.g. 2h)")
    .option('--verify <cmd>', "accept a reported completion only if this command exits 0 (e.g. 'npm test')")
    .option('--verify-timeout <duration>', 'how long the verify command may run (default 10m)')
    .option(
      '--max-idle-rounds <n>',
      'end the run after this many rounds in a row that leave the workspace unchanged (e.g. 3)',
    )
    .option('--wait-on-limits', "wait out an agent's usage or rate limit, then run the round again")
    .option(
      '--max-cost <usd>',
      "the run's cost budget in US dollars: no round starts once it is spent (e.g. 5)",
    );
}
