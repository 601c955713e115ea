import { resolve } from 'node:path';
import { errorText } from '../../contract/error-text.js';
import { RalphError } from '../../contract/errors.js';
import { openRecordingFile, type RecordingFile } from '../../inspect/recording-file.js';
import type { RecordingSink } from '../../inspect/recording-format.js';
import { thisHost } from '../../process/process-identity.js';
import { recordFileUnwritable } from './cli-texts.js';
import type { RunInspector } from './inspect-run.js';
import { NOTIFY_OPTION_KEYS } from './notify-options.js';

/** The options of `ralph run` that are not about where its output goes: what `ralph resume` starts agents with. */
const OUTPUT_OPTIONS = new Set<string>(['json', 'record', 'inspect', 'inspectKeep', ...NOTIFY_OPTION_KEYS]);

/**
 * What a recording's header keeps for `ralph resume`: this process (so a resume can refuse while it still runs)
 * and the run's options, the workspace made absolute (a resume may start in another folder).
 */
export function recordingHostOf(
  options: { cwd?: string | undefined },
  resumed: boolean,
): Record<string, unknown> {
  const run: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) if (!OUTPUT_OPTIONS.has(key)) run[key] = value;
  run.cwd = resolve(options.cwd ?? process.cwd());
  // A resumed run printed no note about its cap: `ralph replay` reads this to print what the run printed.
  return { ralphRun: run, process: thisHost(), ...(resumed ? { resumed: true } : {}) };
}

/** Creates the recording file `--record` names; refused, before anything started, when it cannot be. */
export function openRecording(path: string): RecordingFile {
  try {
    return openRecordingFile(path);
  } catch (error) {
    throw new RalphError({ code: 'refused', message: recordFileUnwritable(path, errorText(error)) });
  }
}

/** Where the run's recording lines go: the --record file, the --inspect page, both, or nowhere. */
export function recordingOption(
  file: RecordingFile | undefined,
  inspector: RunInspector | undefined,
): { record?: RecordingSink } {
  if (inspector === undefined) return file === undefined ? {} : { record: file };
  if (file === undefined) return { record: inspector.sink };
  return {
    record: {
      write(line) {
        file.write(line);
        inspector.sink.write(line);
      },
    },
  };
}
