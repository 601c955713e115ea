import type { Command } from 'commander';
import { addAgentOptions } from './agent-options.js';
import type { BatchOptions } from './batch-options.js';
import { TRUST_TASKS_HELP } from './cli-texts.js';
import { addEvaluatorOptions, EVALUATOR_HELP } from './evaluator-options.js';
import type { SetExitCode } from './exit-codes.js';
import { addGitHubTaskOptions } from './github-task-options.js';
import { addGuardRailOptions, GUARD_RAILS_HELP } from './guard-rail-options.js';
import { addSandboxOptions, SANDBOX_HELP } from './sandbox-options.js';

const BATCH_EXAMPLES = `
Examples:
  $ ralph batch TASKS.md --agent claude --verify 'npm test'
  $ ralph batch tasks.json --agent-command 'my-agent' --parallel 4 --max-time 2h
  $ ralph batch TASKS.md --agent claude --verify 'npm test' --resolve-conflicts
  $ ralph batch TASKS.md --agent claude --evaluator codex     # a task lands only once codex accepted its completion
  $ ralph batch TASKS.md --agent claude --verify 'npm test' --sandbox   # each task's agent and verify in a sandbox
  $ ralph batch TASKS.md --agent claude --resume .git/ralph/batches/20261201-1522-a1b2c3/batch.jsonl
  $ ralph batch --land 20261201-1522-a1b2c3 task-2     # after fixing task-2's branch by hand
  $ ralph batch --rollback 20261201-1522-a1b2c3
  $ ralph batch --rollback 20261201-1522-a1b2c3 --repo git@host:team/app.git
  $ ralph batch --clean --dry-run
  $ ralph batch --clean 20261201-1522-a1b2c3 --force
  $ ralph batch TASKS.md --agent claude --ask    # a blocked task waits for: ralph answer <run-id> "text"
  $ ralph batch --from-github team/app --label ralph --agent claude --verify 'npm test'
  $ ralph batch --from-github team/app --label ralph --agent claude --verify 'npm test' --land pr --into main

Every task is one Ralph loop in its own git worktree on its own branch (ralph/<batch>/<task>); a loop that completes
joins the merge queue, which rebases it onto the target, runs --verify on the combined tree, and only then moves the
target (ralph/batch-<id>, made from HEAD, or --into BRANCH). Your working tree is never read or written.
The agent and guard-rail options hold for every task; --max-time and --max-cost also hold for the whole batch.
With --evaluator (or --evaluator-command), a task's reported completion joins the merge queue only once the
evaluator, run in the task's worktree, accepted it; a task rejected up to its round cap ends budget-limited.
--cwd names the repository (default: the current directory); each task works in its own worktree of it.
The batch is recorded to .git/ralph/batches/<id>/batch.jsonl; ralph report makes its page. See docs/batches.md.
A tasks file is data: an agent command or verify command a task names runs only with --trust-tasks (refused, each
listed, without it); a preset a task names (agent: codex) is taken only when the command line names no agent.
With --sandbox, every task's agent, evaluator and verify command and the merge queue's verify run in a bubblewrap
sandbox that can write the task's worktree (or the merge's) and the repository's git folder (its commits need it),
but sees neither the batch's recordings nor the other tasks' worktrees.
--clean removes what settled batches left; a branch with commits not on the target stays unless --force, and a
batch still running is never touched.

Exit codes:
  0    every task landed
  1    some task did not land: it needs review (a conflict, or --verify failed after merging), failed or was skipped
  2    refused: bad arguments, a bad tasks file, not a git repository; nothing was started
  4    the batch's --max-time or --max-cost ran out
  130  cancelled (Ctrl-C or SIGTERM; a second Ctrl-C forces)
`;

/**
 * Registers `ralph batch`: every task of a tasks file as its own loop in its own worktree, landed through a merge
 * queue. `argv` is the whole command line: a cancelled batch's summary gives back its arguments after `batch` with --resume.
 */
export function addBatchCommand(program: Command, argv: string[], setExitCode: SetExitCode): void {
  const batch = addSandboxOptions(
    addEvaluatorOptions(
      addGuardRailOptions(
        addAgentOptions(
          program
            .command('batch')
            .description(
              'run every task of a tasks file as its own Ralph loop in its own git worktree, landing each through a verified merge queue',
            )
            .argument(
              '[tasks]',
              'a Markdown checklist ("- [ ] objective") or a JSON or YAML list of tasks (with --land: the task id)',
            )
            .option('--parallel <n>', 'how many loops run at once (default 2)')
            .option(
              '--into <branch>',
              'land on this existing branch instead of a new ralph/batch-<id> made from HEAD',
            )
            .option(
              '--max-rounds <n>',
              "each task's round cap unless the task sets maxRounds (default and ceiling 256)",
            )
            .option(
              '--resume <recording>',
              'continue the batch recorded there (its batch.jsonl) after a crash or a cancel, with the same tasks file: landed tasks stay landed, a loop that was running goes on from its last accepted report, a cancelled one runs again from its branch',
            )
            .option(
              '--resolve-conflicts',
              "hand a conflict to a Ralph loop of fresh agents that resolves it keeping both sides' intent (needs --verify)",
            )
            .option(
              '--land <pr|batch-id>',
              'pr: push each task that passed as its own branch and open it as a pull request (a task that did not pass: a draft labelled ralph: needs-review, or an issue comment), in place of landing on the target; a batch id, with the task id as argument (ralph batch --land <batch-id> <task-id>): land that task of the batch through the merge queue once its branch was fixed by hand, and run nothing else',
            )
            .option(
              '--stack',
              "with --land pr: a task that comes after another opens its pull request against that task's branch",
            )
            .option(
              '--rollback <id>',
              "move batch <id>'s target back to the commit it started from, and run nothing",
            )
            .option(
              '--repo <url>',
              'with --rollback: the remote of a fleet batch (ralph submit --batch --repo)',
            )
            .option('--trust-tasks', TRUST_TASKS_HELP)
            .option(
              '--clean [id]',
              'remove what settled batches (or batch <id>) left: branches whose work landed, worktrees, start tags, folders; run nothing',
            )
            .option(
              '--force',
              'with --clean: remove work that did not land, and batches that did not settle, too',
            )
            .option('--dry-run', 'with --clean: say what would be removed, and remove nothing')
            .option(
              '--ask',
              "a task whose round reports blocked waits (up to 24h) for a person's answer (ralph answer), its parallel slot free meanwhile",
            )
            .option('--wait-for-answers <duration>', 'like --ask, waiting at most this long (e.g. 2h)')
            .option(
              '--report-url <url>',
              "with --land pr: where you publish the batch's report page (ralph report); each pull request links it",
            )
            .option(
              '--github-repo <owner/repo>',
              "with --land pr: the repository the pull requests are opened on (default: --from-github's, else origin's); branches are pushed to origin",
            ),
        ),
      ),
    ),
  );
  // The GitHub options, as ralph submit --batch offers them too, last in its help.
  addGitHubTaskOptions(batch)
    .addHelpText('after', BATCH_EXAMPLES + GUARD_RAILS_HELP + EVALUATOR_HELP + SANDBOX_HELP)
    .action(async (tasks: string | undefined, options: BatchOptions) => {
      const { batchCommand } = await import('./batch-command.js');
      setExitCode(await batchCommand(tasks, options, argv.slice(argv.indexOf('batch') + 1)));
    });
}
