import { V1_ASK, V2, V3 } from './formats.js';
import type { RecordingMigration } from './migration.js';
import { headerOnly } from './migration.js';
import { V1_MIGRATIONS } from './v1-machines.js';
import { migrateOneRoundActor, ONE_ROUND_ACTOR_CHANGE } from './v2-to-v3.js';

/**
 * The migration chain, oldest first: each step takes one released format to the next, and the last step's `to` is
 * the format this package writes. To change what a recording holds (the machine, an event, a line's shape): add the
 * new format to formats.ts, bump RECORDING_FORMAT_VERSION (recording-format.ts), write the step in a file of its own
 * (`v<K>-to-v<K+1>.ts`, a pure function of the lines) and append it here; then record the fixtures of the format
 * it replaces (test/fixtures/recordings/README.md). The test of the chain checks it is unbroken and ends at the
 * machine this package runs.
 */
export const RECORDING_MIGRATIONS: readonly RecordingMigration[] = [
  ...V1_MIGRATIONS,
  headerOnly(V1_ASK, V2, 'the header names format version 2: from now on a version is one machine'),
  { from: V2, to: V3, change: ONE_ROUND_ACTOR_CHANGE, migrate: migrateOneRoundActor },
];
