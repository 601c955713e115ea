import type { Command } from 'commander';
import { addAgentOptions } from './agent-options.js';
import { ASK_HELP, addAskOptions } from './ask-options.js';
import { quoteObjectiveHint } from './cli-texts.js';
import { addEvaluatorOptions, EVALUATOR_HELP } from './evaluator-options.js';
import type { SetExitCode } from './exit-codes.js';
import { addGuardRailOptions, GUARD_RAILS_HELP } from './guard-rail-options.js';
import type { RunOptions } from './run.js';
import { addSandboxOptions, SANDBOX_HELP } from './sandbox-options.js';

const RUN_EXAMPLES = `
Examples:
  $ ralph run "Make every test in ./test pass" --agent claude --max-rounds 10
  $ ralph run "Port the parser to TypeScript" --agent codex --cwd ~/src/parser
  $ ralph run "Tick every box in TASKS.md" --agent example --cwd /tmp/demo    # /tmp/demo: a copy of examples/demo-workspace
  $ ralph run "Fix the flaky build" --agent-command 'my-agent --model big' --json
  $ ralph run "Tick every box in TASKS.md" --agent example --cwd /tmp/demo --inspect   # its live page; --inspect-keep keeps it up after the run
  $ ralph run "Make every test pass" --agent claude --verify 'npm test' --max-time 2h --round-timeout 30m

Every round starts one fresh agent in the workspace (--cwd) with the objective and the previous round's report;
the loop ends when a round reports complete or blocked, or after --max-rounds rounds (default and ceiling 256).
Progress goes to stderr, the result to stdout.

Exit codes:
  0    complete: the worker reported the objective done
  1    failed: a child failed, or its report was missing, malformed or too large
  2    refused: bad arguments or config; nothing was started
  3    blocked: the worker reported a blocker
  4    budget-limited: the round cap (or --max-time, --max-idle-rounds) was reached with work remaining
  130  cancelled (Ctrl-C or SIGTERM; a second Ctrl-C forces)
`;

/** Registers `ralph run`: a Ralph loop in the terminal. Its implementation loads only when it runs. */
export function addRunCommand(program: Command, setExitCode: SetExitCode): void {
  const run = addSandboxOptions(
    addEvaluatorOptions(
      addGuardRailOptions(
        addAgentOptions(
          program
            .command('run')
            .description('run a Ralph loop in the terminal')
            .argument('[objective]', 'the immutable objective every round works toward')
            .option('--max-rounds <n>', 'round cap for this run (default and ceiling 256)')
            .option('--json', 'print the result envelope as JSON instead of the text')
            .option(
              '--record <file>',
              'record the run (its inspection events, one JSON line each) for ralph replay',
            )
            .option(
              '--inspect [port]',
              'serve a live page of the run on 127.0.0.1 while it goes (default port 0: any free one)',
            )
            .option(
              '--inspect-keep',
              'keep the live page up after the run, until Ctrl-C (implies --inspect)',
            ),
        ),
      ),
    ),
  )
    .addHelpText('after', RUN_EXAMPLES + GUARD_RAILS_HELP + EVALUATOR_HELP + SANDBOX_HELP + ASK_HELP)
    .action(async (objective: string | undefined, options: RunOptions) => {
      const { runCommand } = await import('./run.js');
      setExitCode(await runCommand(objective, options));
    });
  addAskOptions(run);
  // `ralph run Tick every box`: the shell split an unquoted objective into words, and commander counts them.
  run.configureOutput({
    outputError: (text, write) =>
      write(text.startsWith('error: too many arguments') ? `${text}${quoteObjectiveHint(run.args)}\n` : text),
  });
}

/** Registers `ralph demo`: the offline example agent on a copy of the bundled demo workspace. */
export function addDemoCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('demo')
    .description(
      'copy the bundled demo workspace to a temporary folder and run the offline example agent on it',
    )
    .action(async () => {
      const { demoCommand } = await import('./demo.js');
      setExitCode(await demoCommand());
    });
}
