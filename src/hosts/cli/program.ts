import { Command, CommanderError } from 'commander';
import { packageVersion } from '../../package-root.js';
import { addAgentOptions } from './agent-options.js';
import type { AnswerOptions } from './answer-command.js';
import { ASK_HELP, addAskOptions } from './ask-options.js';
import type { BatchOptions } from './batch-options.js';
import { quoteObjectiveHint, TRUST_TASKS_HELP } from './cli-texts.js';
import { addEvaluatorOptions, EVALUATOR_HELP } from './evaluator-options.js';
import { EXIT } from './exit-codes.js';
import { addFleetCommands } from './fleet-commands.js';
import { addGitHubTaskOptions } from './github-task-options.js';
import { addGuardRailOptions, GUARD_RAILS_HELP } from './guard-rail-options.js';
import type { McpOptions } from './mcp-command.js';
import { addNotifyCommandOptions } from './notify-options.js';
import type { ReplayOptions } from './replay-command.js';
import type { ReportOptions } from './report-command.js';
import type { ReportToolCommandOptions } from './report-tool-command.js';
import type { ResumeOptions } from './resume.js';
import type { RunOptions } from './run.js';
import { addSandboxOptions, SANDBOX_HELP } from './sandbox-options.js';
import type { VizOptions } from './viz.js';

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

const MCP_EXAMPLES = `
Examples:
  $ claude mcp add ralph -- npx ralph mcp --agent claude
  $ ralph mcp --agent-command 'my-agent --model big' --cwd ~/src/project
  $ ralph mcp --agent claude --verify 'npm test' --max-time 1h --max-idle-rounds 3
  $ ralph mcp --agent claude --sandbox     # every call's agent in a bubblewrap sandbox (Linux)
  $ ralph mcp --agent claude --ask         # a blocked call waits for an answer: the ralph_answer tool
  $ ralph mcp --agent claude --verify 'npm test' --batch   # also the ralph_batch tool: tasks on their own branches

Serves one tool, ralph, over stdio. The server's working directory (or --cwd) is the calling agent's workspace.
The guard rails below are the server's settings for every call; a call still sends only objective and maxRounds.
With --ask (or --wait-for-answers 2h) a call whose round reports blocked waits for an answer: its progress carries
the question, and a second tool, ralph_answer { runId, answer } (or ralph answer <run-id> in a terminal), answers.
With --batch a third tool, ralph_batch { tasks: [{ id, objective, after?, maxRounds? }], parallel? }, runs up to 64
tasks as a batch (as ralph batch does: each on its own branch, landed on a new ralph/batch-<id> branch) with the
server's agent, verify command and guard rails; it counts as one of the server's concurrent runs.
`;

const RESUME_EXAMPLES = `
Examples:
  $ ralph run "Port the parser to Rust" --agent claude --record run.jsonl    # the host dies in round 3
  $ ralph resume run.jsonl --trust-recording                                   # round 3 again, then on
  $ ralph resume run.jsonl --agent claude                                      # the same, with your own agent

The run keeps its id, objective and round cap; the last accepted report is the next round's handoff. A round
that was going on is run again with a fresh child once what is left of the old one has been killed. A recording
is data: what it names to run (agent, command, binary paths, verify command, evaluator) and where runs only
with --trust-recording; an agent given here replaces all of it but the evaluator, working in --cwd or the current
folder (a recording naming another folder is refused), and an evaluator given here (--evaluator or
--evaluator-command) replaces the recorded one: a run recorded with an evaluator needs both, or --trust-recording.
A run whose host died while its evaluator checked a reported completion evaluates it again with a fresh evaluator.
The resumed run is recorded to the same file (the one resumed from is kept as <file>.1, <file>.2, …). A run that
settled, or whose host still runs, is refused (exit 2). A run recorded with --sandbox resumes in the sandbox
(--sandbox here adds it to a run recorded without); its --sandbox-env is taken only with --trust-recording.
`;

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

const ANSWER_EXAMPLES = `
Examples:
  $ ralph answer Vx3k9Qp2aB "Use the staging database"
  $ ralph answer run.jsonl "The key is in ~/.config/staging.env"
  $ ralph answer Vx3k9Qp2aB --give-up

A run killed while it waited keeps its question: the answer is kept, and ralph resume of its recording takes it.
Exit codes: 0 the answer was left for the run; 2 refused (the run waits on nothing, a bad run id, an empty answer).
`;

/** The commands this file registers; the fleet's come from fleet-commands.ts. */
const OWN_COMMANDS = [
  'run',
  'mcp',
  'resume',
  'replay',
  'demo',
  'viz',
  'report',
  'report-tool',
  'batch',
  'answer',
] as const;
type OwnCommand = (typeof OWN_COMMANDS)[number];

/**
 * The command `argv` names when it is one of this file's: then only it is registered. commander parses a command's
 * arguments and prints its help and errors with that command alone, and building all of them (their options, their
 * help) is a share of every start-up, `ralph run`'s among them (BENCHMARKS.md). Anything else (no command, --help,
 * --version, `help`, a fleet command, a typo to suggest a command for) gets every command.
 */
function onlyCommand(argv: string[]): OwnCommand | undefined {
  const name = argv[2];
  return OWN_COMMANDS.find((own) => own === name);
}

/**
 * The `ralph` command line. Each command loads its implementation only when it runs, so `ralph run` never pays
 * for the MCP SDK. Resolves with the exit code; argument errors exit 2 like every other refusal.
 */
export async function runCli(argv: string[]): Promise<number> {
  let exitCode: number = EXIT.complete;
  const only = onlyCommand(argv);
  const wanted = (name: OwnCommand): boolean => only === undefined || only === name;
  const program = new Command('ralph')
    .description('Ralph loops: one immutable objective, one fresh agent per round, schema-checked reports.')
    .version(packageVersion())
    .exitOverride()
    .showHelpAfterError('(run ralph --help for usage)');

  if (wanted('run')) {
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
        exitCode = await runCommand(objective, options);
      });
    addAskOptions(run);
    // `ralph run Tick every box`: the shell split an unquoted objective into words, and commander counts them.
    run.configureOutput({
      outputError: (text, write) =>
        write(
          text.startsWith('error: too many arguments') ? `${text}${quoteObjectiveHint(run.args)}\n` : text,
        ),
    });
  }

  if (wanted('mcp')) {
    const mcp = addSandboxOptions(
      addEvaluatorOptions(
        addGuardRailOptions(
          addAgentOptions(
            program
              .command('mcp')
              .description('serve the ralph tool over MCP (stdio)')
              .option(
                '--max-rounds <n>',
                "the deployment's default and ceiling for a call's maxRounds (at most 256)",
              )
              .option(
                '--max-concurrent-runs <n>',
                'how many calls may run at once; one more is refused (default 1)',
              )
              .option(
                '--batch',
                'also serve the ralph_batch tool: a batch of tasks, each on its own branch (off by default)',
              ),
          ),
        ),
      ),
    )
      .addHelpText('after', MCP_EXAMPLES + GUARD_RAILS_HELP + EVALUATOR_HELP + SANDBOX_HELP)
      .action(async (options: McpOptions) => {
        const { mcpCommand } = await import('./mcp-command.js');
        exitCode = await mcpCommand(options);
      });
    addAskOptions(mcp);
  }

  if (wanted('resume')) {
    const resume = addSandboxOptions(
      addEvaluatorOptions(
        addAgentOptions(
          program
            .command('resume')
            .description(
              'continue a run recorded with ralph run --record that did not settle: same run id, objective and cap, from its last accepted report',
            )
            .argument('<file>', 'the recording (JSON Lines); the resumed run is recorded there again')
            .option('--json', 'print the result envelope as JSON instead of the text')
            .option('--record <file>', 'record the resumed run here instead of in <file>')
            .option('--inspect [port]', 'serve a live page of the run on 127.0.0.1 while it goes')
            .option('--inspect-keep', 'keep the live page up after the run, until Ctrl-C (implies --inspect)')
            .option(
              '--trust-recording',
              'run the agent, evaluator, binary paths and verify command the recording names (shown when refused without it)',
            ),
        ),
      ),
    )
      .addHelpText('after', RESUME_EXAMPLES + SANDBOX_HELP + ASK_HELP)
      .action(async (file: string, options: ResumeOptions) => {
        const { resumeCommand } = await import('./resume.js');
        exitCode = await resumeCommand(file, options);
      });
    addAskOptions(resume);
  }

  if (wanted('answer')) {
    program
      .command('answer')
      .description(
        "answer the question of a local run that waits (ralph run --ask): its blocked round's blocker",
      )
      .argument('<run>', "the run id (printed with the question), or the run's recording (--record)")
      .argument('[answer]', "the answer, one argument (quote it); the next round reads it as a person's")
      .option('--give-up', 'answer nothing: the run stops waiting and ends blocked now')
      .option('--database-url <url>', "a fleet run's database, postgres://… (default: $RALPH_DATABASE_URL)")
      .option('--database-url-file <file>', 'read the database URL from this file (its first line)')
      .addHelpText('after', ANSWER_EXAMPLES)
      .action(async (run: string, answer: string | undefined, options: AnswerOptions) => {
        const { answerCommand } = await import('./answer-command.js');
        exitCode = await answerCommand(run, answer, options);
      });
  }

  if (wanted('replay')) {
    program
      .command('replay')
      .description('replay a run recorded with ralph run --record: print what it printed, exit as it exited')
      .argument('<file>', 'the recording (JSON Lines)')
      .option('--json', 'print the result envelope (or the error) as JSON, as ralph run --json did')
      .action(async (file: string, options: ReplayOptions) => {
        const { replayCommand } = await import('./replay-command.js');
        exitCode = await replayCommand(file, options);
      });
  }

  if (wanted('demo')) {
    program
      .command('demo')
      .description(
        'copy the bundled demo workspace to a temporary folder and run the offline example agent on it',
      )
      .action(async () => {
        const { demoCommand } = await import('./demo.js');
        exitCode = await demoCommand();
      });
  }

  if (wanted('viz')) {
    program
      .command('viz')
      .description("write the machine's diagrams (Mermaid, DOT, SVG) and its Stately code to a folder")
      .option('--out <dir>', 'the folder to write to', 'visualizations')
      .option('--check', 'write nothing; exit 1 when a file there differs from what ralph viz would write')
      .action(async (options: VizOptions) => {
        const { vizCommand } = await import('./viz.js');
        exitCode = await vizCommand(options);
      });
  }

  if (wanted('report')) {
    program
      .command('report')
      .description(
        'write the HTML report of a recorded run (ralph run --record) or batch (ralph batch): one self-contained file',
      )
      .argument('<recording>', 'the recording, e.g. run.jsonl')
      .option(
        '-o, --output <file>',
        'where to write the report (default: the recording with .html for .jsonl)',
      )
      .action(async (recording: string, options: ReportOptions) => {
        const { reportCommand } = await import('./report-command.js');
        exitCode = await reportCommand(recording, options);
      });
  }

  if (wanted('report-tool')) {
    program
      .command('report-tool')
      .description(
        "serve one round's submit_report tool over MCP (stdio), for agent CLIs with no schema flag; ralph's presets register it per round",
      )
      .option('--report-file <file>', 'where a valid report is written (default: $RALPH_REPORT_FILE)')
      .option(
        '--max-handoff-chars <n>',
        'the handoff cap a report must fit (default: $RALPH_MAX_HANDOFF_CHARS, else 16384)',
      )
      .option(
        '--verdict',
        "serve an evaluator's submit_verdict tool instead (the verdict's schema and rules)",
      )
      .action(async (options: ReportToolCommandOptions) => {
        const { reportToolCommand } = await import('./report-tool-command.js');
        exitCode = await reportToolCommand(options);
      });
  }

  if (wanted('batch')) {
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
        exitCode = await batchCommand(tasks, options, argv.slice(argv.indexOf('batch') + 1));
      });
  }

  if (only === undefined) {
    addFleetCommands(program, (code) => {
      exitCode = code;
    });
  }
  addNotifyCommandOptions(program);

  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.complete : EXIT.refused;
    throw error;
  }
  return exitCode;
}
