import type { RunEventTable } from '../../../fleet/run-events.js';
import { runPageUpdate } from '../../../visualize/report-page.js';
import { SECURITY_HEADERS } from '../loopback-page.js';

/** How many run pages may follow their run at once: each open stream polls the database. */
export const MAX_RUN_STREAMS = 16;

/** How often a run page's stream reads the run's new lines (ms). */
const STREAM_POLL_MS = 1_000;

import type { ServerResponse } from 'node:http';
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

/** The Server-Sent Events streams of the run pages open on a dashboard. */
export interface RunStreams {
  /** Streams the run's page updates to `response`, as the live inspector does; false when MAX_RUN_STREAMS are open. */
  follow(runId: string, response: ServerResponse): boolean;
  /** Ends every stream. */
  close(): Promise<void>;
}

/**
 * The run pages' streams: each reads its run's new lines every STREAM_POLL_MS and sends the page's update when it
 * changed (an idle run costs a query a second, not a page a second), at most MAX_RUN_STREAMS at once.
 */
export function createRunStreams(events: RunEventTable): RunStreams {
  const streams = new Map<ServerResponse, () => void>();
  return {
    follow(runId, response) {
      if (streams.size >= MAX_RUN_STREAMS) return false;
      response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', ...SECURITY_HEADERS });
      response.write('retry: 1000\n\n');
      const follower = followRun(events, runId);
      let timer: NodeJS.Timeout | undefined;
      let sent = '';
      const stop = () => {
        streams.delete(response);
        if (timer !== undefined) clearTimeout(timer);
      };
      streams.set(response, stop);
      const tick = async () => {
        try {
          const message = `event: run\ndata: ${JSON.stringify(runPageUpdate(await follower.poll()))}\n\n`;
          if (message !== sent && streams.has(response)) response.write(message);
          sent = message;
        } catch {
          // The database away for a moment: the page keeps what it shows, and the next tick tries again.
        }
        if (streams.has(response)) timer = setTimeout(tick, STREAM_POLL_MS);
      };
      response.on('close', stop);
      void tick();
      return true;
    },
    async close() {
      const open = [...streams.entries()];
      for (const [, stop] of open) stop();
      await Promise.all(open.map(([stream]) => new Promise<void>((resolve) => stream.end(resolve))));
    },
  };
}
