import type { Command } from 'commander';
import { addAgentOptions } from './agent-options.js';
import { ASK_HELP, addAskOptions } from './ask-options.js';
import { TRUST_TASKS_HELP } from './cli-texts.js';
import { addEvaluatorOptions, EVALUATOR_HELP } from './evaluator-options.js';
import type { SetExitCode } from './exit-codes.js';
import { DATABASE_URL, DATABASE_URL_FILE } from './fleet-database-options.js';
import { addGitHubTaskOptions, GITHUB_TASK_KEYS, PULL_KEYS } from './github-task-options.js';
import { addGuardRailOptions, GUARD_RAILS_HELP } from './guard-rail-options.js';
import { addSandboxOptions, SANDBOX_HELP } from './sandbox-options.js';
import type { SubmitBatchOptions } from './submit-batch-options.js';

const SUBMIT_SANDBOX_HELP = `On a fleet --sandbox asks every worker that takes the run to sandbox it (one where bubblewrap cannot
run refuses it), and --sandbox-network none takes the network away too. It never turns a worker's own sandbox off
(ralph worker --sandbox), and the variables a sandboxed agent keeps are the worker's to name (--sandbox-env).
`;

const SUBMIT_EVALUATOR_HELP = `On a fleet the evaluator is an agent like any other: a worker runs a run only if it offers both the
run's agent and its evaluator (--agent PRESET for --evaluator PRESET, --allow-agent-command for --evaluator-command);
any other worker that takes it ends it refused, starting nothing. With --batch, a task lands only once accepted.
`;

const SUBMIT_GUARD_RAILS_HELP = `On a fleet the guard rails go with the run: whichever worker runs it holds them, also after
a takeover. --max-time counts from the run's start, --max-cost counts the rounds of every worker that ran it.
`;

const SUBMIT_ASK_HELP = `On a fleet the question waits in the database: answer with ralph answer <run-id> "text"
(--database-url), or in ralph dashboard. A run waiting for an answer holds no worker slot and no agent; the answer
may be given while no worker is alive, and the worker that runs the run next takes it, once.
`;

/** Registers `ralph submit`: one run, or with --batch (or --from-github) a batch's tasks, queued on a fleet. */
export function addSubmitCommand(program: Command, setExitCode: SetExitCode): void {
  const submit = addAskOptions(
    addSandboxOptions(
      addEvaluatorOptions(
        addGuardRailOptions(
          addAgentOptions(
            program
              .command('submit')
              .description('enqueue a Ralph loop on a fleet and print its run id')
              .argument('[objective]', 'the immutable objective every round works toward')
              .option('--max-rounds <n>', 'round cap for this run (default and ceiling 256)')
              .option(
                '--batch [tasks]',
                'submit every task of a tasks file (or of --from-github) as a run of a batch (see ralph batch); needs --repo',
              )
              .option(
                '--repo <url>',
                "the batch's git repository (file://, https://, ssh://, user@host:path): workers clone it, push there",
              )
              .option(
                '--into <branch>',
                "the branch the batch lands on (default: a new ralph/batch-<id> from the remote's HEAD)",
              )
              .option(
                '--resolve-conflicts',
                "with --batch: a landing's conflict goes to a Ralph loop of fresh agents keeping both sides' intent (needs --verify)",
              )
              .option('--trust-tasks', `with --batch: ${TRUST_TASKS_HELP}`)
              .option(
                '--land <pr>',
                'with --batch: each task goes out as a pull request, opened by a worker with --allow-github and its own token (a task that did not pass: a draft labelled ralph: needs-review)',
              )
              .option(
                '--stack',
                "with --land pr: a task after another opens its pull request against that task's branch",
              )
              .option(
                '--github-repo <owner/repo>',
                "with --land pr: the repository of the pull requests (default: --from-github's, else --repo's on GitHub)",
              )
              .option(
                '--report-url <url>',
                "with --land pr: where the batch's report is published, linked from each pull request",
              )
              .option(...DATABASE_URL)
              .option(...DATABASE_URL_FILE),
          ),
        ),
      ),
    ),
  );
  addGitHubTaskOptions(submit)
    .addHelpText(
      'after',
      `${GUARD_RAILS_HELP}${SUBMIT_GUARD_RAILS_HELP}${ASK_HELP}${SUBMIT_ASK_HELP}${EVALUATOR_HELP}${SUBMIT_EVALUATOR_HELP}${SANDBOX_HELP}${SUBMIT_SANDBOX_HELP}`,
    )
    .action(async (objective: string | undefined, options: SubmitBatchOptions) => {
      // --resolve-conflicts, --trust-tasks or a GitHub option without --batch is refused there (they need a batch),
      // never sent as an agent option. --from-github alone is a batch: its issues are the tasks.
      if (
        options.batch !== undefined ||
        options.resolveConflicts === true ||
        options.trustTasks === true ||
        PULL_KEYS.some((key) => options[key] !== undefined) ||
        GITHUB_TASK_KEYS.some((key) => options[key] !== undefined)
      ) {
        const { submitBatchCommand } = await import('./submit-batch-command.js');
        setExitCode(await submitBatchCommand(objective, options));
        return;
      }
      const { submitCommand } = await import('./submit-command.js');
      setExitCode(await submitCommand(objective, options));
    });
}
