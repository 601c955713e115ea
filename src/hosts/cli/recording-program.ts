import type { Command } from 'commander';
import type { SetExitCode } from './exit-codes.js';
import type { ReplayOptions } from './replay-command.js';
import type { ReportOptions } from './report-command.js';
import type { VizOptions } from './viz.js';

/** Registers `ralph replay`: print what a recorded run printed, exit as it exited. */
export function addReplayCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('replay')
    .description('replay a run recorded with ralph run --record: print what it printed, exit as it exited')
    .argument('<file>', 'the recording (JSON Lines)')
    .option('--json', 'print the result envelope (or the error) as JSON, as ralph run --json did')
    .action(async (file: string, options: ReplayOptions) => {
      const { replayCommand } = await import('./replay-command.js');
      setExitCode(await replayCommand(file, options));
    });
}

/** Registers `ralph report`: the HTML report of a recorded run or batch. */
export function addReportCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('report')
    .description(
      'write the HTML report of a recorded run (ralph run --record) or batch (ralph batch): one self-contained file',
    )
    .argument('<recording>', 'the recording, e.g. run.jsonl')
    .option('-o, --output <file>', 'where to write the report (default: the recording with .html for .jsonl)')
    .action(async (recording: string, options: ReportOptions) => {
      const { reportCommand } = await import('./report-command.js');
      setExitCode(await reportCommand(recording, options));
    });
}

/** Registers `ralph viz`: the machine's diagrams and Stately code, written to a folder. */
export function addVizCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('viz')
    .description("write the machine's diagrams (Mermaid, DOT, SVG) and its Stately code to a folder")
    .option('--out <dir>', 'the folder to write to', 'visualizations')
    .option('--check', 'write nothing; exit 1 when a file there differs from what ralph viz would write')
    .action(async (options: VizOptions) => {
      const { vizCommand } = await import('./viz.js');
      setExitCode(await vizCommand(options));
    });
}
