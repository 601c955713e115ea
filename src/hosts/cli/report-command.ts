import { constants } from 'node:fs';
import { type FileHandle, open, readFile } from 'node:fs/promises';
import { RunPathRefused } from '../../batch/run-path.js';
import { isRalphError, RalphError } from '../../contract/errors.js';
import { isBatchRecording } from '../../inspect/batch-recording.js';
import { RecordingError } from '../../inspect/recording-reader.js';
import { buildRunModel } from '../../inspect/run-model-builder.js';
import { renderRunPage } from '../../visualize/report-page.js';
import type { PageToWrite } from './batch-report.js';
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

const { O_CREAT, O_NOFOLLOW, O_WRONLY } = constants;

/** Refusal: a symbolic link stands at the report's path (one planted beside a shared recording would be followed). */
export const symlinkRefused = 'it is a symbolic link, which ralph report does not write through';

/**
 * Opens `file` for writing without following a symbolic link at it: a link to a file, there or not, is refused
 * (nothing is created or truncated through it); only a link to a device or a pipe, such as /dev/stdout, is written to.
 */
async function openNoFollow(file: string): Promise<FileHandle> {
  try {
    return await open(file, O_WRONLY | O_CREAT | O_NOFOLLOW, 0o600);
  } catch (error) {
    // O_NOFOLLOW meeting a link: ELOOP on Linux and macOS, EMLINK on FreeBSD.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ELOOP' && code !== 'EMLINK') throw error;
  }
  const linked = await open(file, O_WRONLY).catch(() => {
    throw new Error(symlinkRefused);
  });
  if ((await linked.stat()).isFile()) {
    await linked.close();
    throw new Error(symlinkRefused);
  }
  return linked;
}

/**
 * Writes `text` to `file` readable by its owner only, as the recording that holds the same run is: a new file is made
 * 0600, and a regular file that was there is set to 0600 before anything is written to it (a device or a pipe, such as
 * /dev/stdout, keeps its mode). A symbolic link at `file` is not followed (see openNoFollow).
 */
async function writePrivately(file: string, text: string): Promise<void> {
  const handle = await openNoFollow(file);
  try {
    if ((await handle.stat()).isFile()) {
      await handle.chmod(0o600);
      await handle.truncate(0);
    }
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
  const unreadable = (reason: string) =>
    new RalphError({ code: 'refused', message: recordingUnreadable(recording, reason) });
  try {
    let text: string;
    try {
      text = await readFile(recording, 'utf8');
    } catch (error) {
      throw unreadable(reasonOf(error));
    }
    let pages: PageToWrite[];
    try {
      pages = isBatchRecording(text)
        ? (await import('./batch-report.js')).batchReportPages(recording, text, output)
        : [
            {
              path: output,
              html: renderRunPage(buildRunModel(text), { machineSvg: machineSvg('ralph report') }),
            },
          ];
    } catch (error) {
      if (!(error instanceof RecordingError || error instanceof RunPathRefused)) throw error;
      throw unreadable(error.message);
    }
    for (const page of pages) await writeReport(page.path, page.html);
    process.stderr.write(`${reportWritten(output)}\n`);
    return EXIT.complete;
  } catch (error) {
    if (!isRalphError(error)) throw error;
    process.stderr.write(`${error.message}\n`);
    return EXIT.refused;
  }
}
