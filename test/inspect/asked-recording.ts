import {
  type AnswerSource,
  type RalphEnvelope,
  RalphError,
  type RalphProgressEvent,
  type ScriptedStep,
} from '../../src/index.js';
import { blockedReport, completeReport, continueReport } from '../support/round-reports.js';
import { agent, scriptedTool } from '../support/tool.js';

/** The blocker every asked recording's round 2 puts to a person: markup, so that the pages must escape it. */
export const ASKED = 'Which database? <script>alert("db")</script> & co';

/** A source that never answers: it waits until the run stops it. */
export const neverAnswers: AnswerSource = (_question, signal) =>
  new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));

/** One recorded run of the engine that asked a person, with how it ended and what it said on the way. */
export interface AskedRecording {
  text: string;
  lines: string[];
  result: { ok: true; envelope: RalphEnvelope } | { ok: false; error: RalphError };
  progress: RalphProgressEvent[];
}

/**
 * Records a run of the scripted provider (round 1 continues, round 2 blocks on ASKED, round 3 completes) that asks
 * (`waitForAnswersMs`), answered by `answers`; `cancel` cancels it once it waits.
 */
export async function recordAskedRun(
  answers: AnswerSource | undefined,
  options: { waitMs?: number; cancel?: boolean; steps?: ScriptedStep[] } = {},
): Promise<AskedRecording> {
  const steps = options.steps ?? [
    { report: continueReport('round 1 read the schema') },
    { report: blockedReport(ASKED) },
    { report: completeReport('round 3 migrated to the answered database') },
  ];
  const { tool } = scriptedTool(steps, { waitForAnswersMs: options.waitMs ?? 60_000 });
  const lines: string[] = [];
  const progress: RalphProgressEvent[] = [];
  const controller = new AbortController();
  const run = tool.execute(
    { objective: 'Migrate the schema', maxRounds: 4 },
    {
      agent,
      signal: controller.signal,
      record: { write: (line) => lines.push(line) },
      onProgress: (event) => {
        progress.push(event);
        if (options.cancel === true && event.type === 'question-asked')
          setImmediate(() => controller.abort());
      },
      ...(answers === undefined ? {} : { answers }),
    },
  );
  let result: AskedRecording['result'];
  try {
    result = { ok: true, envelope: await run };
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    result = { ok: false, error };
  }
  return { text: lines.join(''), lines, result, progress };
}
