import {
  V1_ASK,
  V1_EVALUATOR,
  V1_GUARD_RAILS,
  V1_MONEY,
  V1_NESTED,
  V1_RESUME,
  V1_ROUND_REPORT,
  V1_SANDBOX,
  V1_USAGE,
} from './formats.js';
import { headerOnly, type RecordingMigration } from './migration.js';
import { V1_RESUME_STEP } from './v1-resume.js';
import { V1_USAGE_STEP } from './v1-usage.js';

/**
 * The steps between the machines that wrote format version 1. Each added states, guards or context keys, and kept
 * the events a round sends its machine (`xstate.init` with the call, `xstate.done.actor.startChild` with the child's
 * id, `xstate.done.actor.awaitReport` with its report, CANCEL), which are what a replay takes through today's
 * machine, so their lines need no change; but usage wrapped the report (v1-usage.ts), and the header began to keep
 * ralph run's options (v1-resume.ts). What they do not keep (the older machines' states and snapshots) is read as
 * recorded: the report and resume read the flat chart's state names, and a replay does not compare an older
 * machine's snapshots with today's (docs/recording.md).
 */
export const V1_MIGRATIONS: readonly RecordingMigration[] = [
  V1_RESUME_STEP,
  headerOnly(V1_RESUME, V1_GUARD_RAILS, 'the guard rails'),
  V1_USAGE_STEP,
  headerOnly(V1_USAGE, V1_MONEY, 'the cost budget'),
  headerOnly(V1_MONEY, V1_ROUND_REPORT, 'the round-report rename'),
  headerOnly(V1_ROUND_REPORT, V1_NESTED, 'the nested chart (running.round.awaitingReport …)'),
  headerOnly(V1_NESTED, V1_EVALUATOR, 'the independent evaluator'),
  headerOnly(V1_EVALUATOR, V1_SANDBOX, 'the sandbox'),
  headerOnly(V1_SANDBOX, V1_ASK, 'asking a person'),
];
