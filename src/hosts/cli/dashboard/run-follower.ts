import type { RunEventTable } from '../../../fleet/run-events.js';
import type { RunModel } from '../../../inspect/run-model.js';
import { createRunModelBuilder, type RunModelBuilder } from '../../../inspect/run-model-builder.js';

/** A fleet run's model rebuilt from the recording lines its workers stored, read on as they add more. */
export interface RunFollower {
  /** Reads the lines added since the last call; resolves with the model (null before the run's first line). */
  poll(): Promise<RunModel | null>;
}

/**
 * The model under the fleet's run id, as `ralph submit` printed it and the run's envelope carries it (the recording
 * has the id its worker's engine gave the run).
 */
function asFleetRun(model: RunModel, runId: string): RunModel {
  const result = model.ending?.result;
  const ending =
    model.ending === null || result?.ok !== true
      ? model.ending
      : { ...model.ending, result: { ...result, envelope: { ...result.envelope, runId } } };
  return { ...model, runId, ending };
}

/**
 * Follows one run's stored recording. Lines are read in order, a batch at a time; a line the builder cannot take
 * leaves the model as it stood (what was shown stays shown), as the live inspector does.
 */
export function followRun(events: RunEventTable, runId: string): RunFollower {
  let builder: RunModelBuilder | undefined;
  let seen = 0;
  let broken = false;
  return {
    async poll() {
      while (!broken) {
        const rows = await events.since(runId, seen);
        for (const row of rows) {
          seen = row.seq;
          try {
            if (builder === undefined) builder = createRunModelBuilder(row.line);
            else builder.add(row.line);
          } catch {
            broken = true;
            break;
          }
        }
        if (rows.length < 1_000) break;
      }
      return builder === undefined ? null : asFleetRun(builder.model, runId);
    },
  };
}
