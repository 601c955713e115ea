import { V1_RECORDING, V1_RESUME } from './formats.js';
import type { RecordingMigration } from './migration.js';

/**
 * Resume (63f9ded): `ralph run --record` began keeping its options in the header's `host.ralphRun`, for `ralph
 * resume`. A recording from before keeps none, and the machine's call (objective, round cap) is all it holds: it
 * gets an empty set of options, so `ralph resume` takes the agent, and the workspace, from its own options
 * (`--agent-command …`, `--cwd`) and runs nothing the recording names. A header that has a host keeps it.
 */
export const V1_RESUME_STEP: RecordingMigration = {
  from: V1_RECORDING,
  to: V1_RESUME,
  change: 'the header keeps ralph run’s options (host.ralphRun): none were kept before',
  migrate: (recording) =>
    recording.header.host === undefined
      ? { header: { ...recording.header, host: { ralphRun: {} } }, lines: recording.lines }
      : recording,
};
