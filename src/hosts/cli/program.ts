import { Command, CommanderError } from 'commander';
import { packageVersion } from '../../package-root.js';
import { addBatchCommand } from './batch-program.js';
import { EXIT } from './exit-codes.js';
import { addFleetCommands } from './fleet-commands.js';
import { addMcpCommand, addReportToolCommand } from './mcp-program.js';
import { addNotifyCommandOptions } from './notify-options.js';
import { addReplayCommand, addReportCommand, addVizCommand } from './recording-program.js';
import { addAnswerCommand, addResumeCommand } from './resume-program.js';
import { addDemoCommand, addRunCommand } from './run-program.js';

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
  const setExitCode = (code: number) => {
    exitCode = code;
  };
  const only = onlyCommand(argv);
  const wanted = (name: OwnCommand): boolean => only === undefined || only === name;
  const program = new Command('ralph')
    .description('Ralph loops: one immutable objective, one fresh agent per round, schema-checked reports.')
    .version(packageVersion())
    .exitOverride()
    .showHelpAfterError('(run ralph --help for usage)');

  // In this order in `ralph --help`.
  if (wanted('run')) addRunCommand(program, setExitCode);
  if (wanted('mcp')) addMcpCommand(program, setExitCode);
  if (wanted('resume')) addResumeCommand(program, setExitCode);
  if (wanted('answer')) addAnswerCommand(program, setExitCode);
  if (wanted('replay')) addReplayCommand(program, setExitCode);
  if (wanted('demo')) addDemoCommand(program, setExitCode);
  if (wanted('viz')) addVizCommand(program, setExitCode);
  if (wanted('report')) addReportCommand(program, setExitCode);
  if (wanted('report-tool')) addReportToolCommand(program, setExitCode);
  if (wanted('batch')) addBatchCommand(program, argv, setExitCode);
  if (only === undefined) addFleetCommands(program, setExitCode);
  addNotifyCommandOptions(program);

  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.complete : EXIT.refused;
    throw error;
  }
  return exitCode;
}
