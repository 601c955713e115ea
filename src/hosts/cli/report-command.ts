import { open, readFile } from 'node:fs/promises';
import { isRalphError, RalphError } from '../../contract/errors.js';
import { isBatchRecording } from '../../inspect/batch-recording.js';
import { RecordingError } from '../../inspect/recording-reader.js';
import { buildRunModel } from '../../inspect/run-model-builder.js';
import { renderRunPage } from '../../visualize/report-page.js';
import { EXIT } from './exit-codes.js';
import { machineSvg } from './machine-svg.js';
import { defaultReportPath } from './report-path.js';

/** The options of `ralph report`. */
export interface ReportOptions {
  /** Where the HTML goes (default: the recording's path with `.html` for `.jsonl`). */
  output?: string;
}

/** Refusal: the recording could not be read. */
export function recordingUnreadable(file: string, reason: string): string {
  return `ralph report cannot read ${file}: ${reason}`;
}

/** Refusal: the report could not be written. */
export function reportUnwritable(file: string, reason: string): string {
  return `ralph report cannot write ${file}: ${reason}`;
}

/** Said on stderr once the report is written. */
export const reportWritten = (file: string): string => `ralph: report written to ${file}`;

/**
 * Writes `text` to `file` readable by its owner only, as the recording that holds the same run is: a new file is made
 * 0600, and a regular file that was there is set to 0600 before anything is written to it (a device or a pipe, such as
 * /dev/stdout, keeps its mode).
 */
async function writePrivately(file: string, text: string): Promise<void> {
  const handle = await open(file, 'w', 0o600);
  try {
    if ((await handle.stat()).isFile()) await handle.chmod(0o600);
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}

const reasonOf = (error: unknown): string =>
  (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));

/** Writes a report page; refused (exit 2) when it cannot be written. */
async function writeReport(output: string, html: string): Promise<void> {
  try {
    await writePrivately(output, html);
  } catch (error) {
    throw new RalphError({ code: 'refused', message: reportUnwritable(output, reasonOf(error)) });
  }
}

/**
 * `ralph report run.jsonl -o run.html`: rebuilds the run from its recording and writes the run page, one
 * self-contained HTML file, with the package's statechart. A batch's recording gives the batch's page, a row per
 * task, and each task's run page beside its run's recording. A recording that cannot be read or is not one is refused
 * (exit 2), like an output path that cannot be written.
 */
export async function reportCommand(recording: string, options: ReportOptions): Promise<number> {
  const output = options.output ?? defaultReportPath(recording);
  try {
    let text: string;
    try {
      text = await readFile(recording, 'utf8');
    } catch (error) {
      throw new RalphError({ code: 'refused', message: recordingUnreadable(recording, reasonOf(error)) });
    }
    if (isBatchRecording(text)) {
      const { batchReportPages } = await import('./batch-report.js');
      for (const page of batchReportPages(recording, text, output)) await writeReport(page.path, page.html);
      process.stderr.write(`${reportWritten(output)}\n`);
      return EXIT.complete;
    }
    let model: ReturnType<typeof buildRunModel>;
    try {
      model = buildRunModel(text);
    } catch (error) {
      if (!(error instanceof RecordingError)) throw error;
      throw new RalphError({ code: 'refused', message: recordingUnreadable(recording, error.message) });
    }
    const html = renderRunPage(model, { machineSvg: machineSvg('ralph report') });
    await writeReport(output, html);
    process.stderr.write(`${reportWritten(output)}\n`);
    return EXIT.complete;
  } catch (error) {
    if (!isRalphError(error)) throw error;
    process.stderr.write(`${error.message}\n`);
    return EXIT.refused;
  }
}
