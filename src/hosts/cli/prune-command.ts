import { parseDuration } from '../../contract/duration.js';
import { prunedLine, pruneSummary } from '../../contract/prune-messages.js';
import { stripControlToLine } from '../../render/terminal-text.js';
import { databaseUrlOf, type FleetOptions, quietDeprecations, reportFleetFailure } from './fleet-cli.js';

/** The options of `ralph prune`. */
export interface PruneOptions extends FleetOptions {
  olderThan: string;
  dryRun?: boolean;
}

/**
 * `ralph prune --older-than DURATION`: deletes the fleet's runs and batches that ended longer ago than that, one line
 * each (ids are database values: printed without controls), then a summary. A bad duration is refused (exit 2).
 */
export async function pruneCommand(options: PruneOptions): Promise<number> {
  quietDeprecations();
  try {
    const { MAX_PRUNE_AGE_MS, pruneFleet } = await import('../../fleet/prune.js');
    const olderThanMs = parseDuration(options.olderThan, '--older-than', MAX_PRUNE_AGE_MS);
    const databaseUrl = databaseUrlOf(options);
    const dryRun = options.dryRun === true;
    const units = await pruneFleet({ databaseUrl, olderThanMs, dryRun });
    for (const unit of units) {
      process.stdout.write(
        `${stripControlToLine(prunedLine(unit.kind, unit.id, unit.workflows.length, dryRun))}\n`,
      );
    }
    const runs = units.filter((unit) => unit.kind === 'run').length;
    process.stdout.write(`${pruneSummary(runs, units.length - runs, olderThanMs, dryRun)}\n`);
    return 0;
  } catch (error) {
    return reportFleetFailure(error);
  }
}
