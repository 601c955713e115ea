import { V1_GUARD_RAILS, V1_USAGE } from './formats.js';
import { mapLines, type RecordingMigration } from './migration.js';

const REPORT_DONE = 'xstate.done.actor.awaitReport';

/**
 * Usage (h-usage): a round's `awaitReport` output became `{output, usage}`, the raw report beside what its agent
 * said it used. A report of the machines before is its output alone, and no usage was heard: `usage: null`.
 */
export const V1_USAGE_STEP: RecordingMigration = {
  from: V1_GUARD_RAILS,
  to: V1_USAGE,
  change: "a round's report event holds {output, usage}: the report, and usage null",
  migrate: (recording) =>
    mapLines(recording, (line) => {
      const event = line.event as { type?: unknown; output?: unknown } | undefined;
      if (line.type !== '@xstate.event' || event?.type !== REPORT_DONE) return undefined;
      return { ...line, event: { ...event, output: { output: event.output, usage: null } } };
    }),
};
