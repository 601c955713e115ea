import type { Command } from 'commander';
import { addAgentOptions } from './agent-options.js';
import { addAskOptions } from './ask-options.js';
import { addEvaluatorOptions, EVALUATOR_HELP } from './evaluator-options.js';
import type { SetExitCode } from './exit-codes.js';
import { addGuardRailOptions, GUARD_RAILS_HELP } from './guard-rail-options.js';
import type { McpOptions } from './mcp-command.js';
import type { ReportToolCommandOptions } from './report-tool-command.js';
import { addSandboxOptions, SANDBOX_HELP } from './sandbox-options.js';

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

/** Registers `ralph mcp`: the ralph tool served over MCP (stdio). Loads the MCP SDK only when it runs. */
export function addMcpCommand(program: Command, setExitCode: SetExitCode): void {
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
      setExitCode(await mcpCommand(options));
    });
  addAskOptions(mcp);
}

/** Registers `ralph report-tool`: one round's submit_report (or an evaluator's submit_verdict) tool over MCP. */
export function addReportToolCommand(program: Command, setExitCode: SetExitCode): void {
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
    .option('--verdict', "serve an evaluator's submit_verdict tool instead (the verdict's schema and rules)")
    .action(async (options: ReportToolCommandOptions) => {
      const { reportToolCommand } = await import('./report-tool-command.js');
      setExitCode(await reportToolCommand(options));
    });
}
