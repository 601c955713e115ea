import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { BatchProgressEvent } from '../../batch/run-batch.js';
import type { RalphBatchTool } from '../batch-tool.js';
import { type ProgressLink, progressSender } from './call-progress.js';

/** The `ralph_batch` tool as `tools/list` shows it (listed only by a server started with `--batch`). */
export function ralphBatchToolDefinition(batch: RalphBatchTool): Tool {
  return {
    name: batch.name,
    title: 'ralph batch',
    description: batch.description,
    inputSchema: structuredClone(batch.jsonSchema) as unknown as Tool['inputSchema'],
  };
}

/** The progress message of a task's status change: `Task a running`, `Task a landed: …`. */
export function taskProgressText(event: Extract<BatchProgressEvent, { type: 'task' }>): string {
  return `Task ${event.taskId} ${event.status}${event.note === null ? '' : `: ${event.note}`}`;
}

/**
 * Runs one `ralph_batch` call: a progress notification per task status change (when the client sent a progress
 * token; each one's progress one above the last), and the native result text once every child stopped, after the
 * client has dispatched that progress. A refusal or failure is left to the caller (it throws, nothing started).
 */
export async function callBatch(
  batch: RalphBatchTool,
  args: unknown,
  link: ProgressLink,
): Promise<CallToolResult> {
  const sender = link.token === undefined ? undefined : progressSender(link, link.token);
  let count = 0;
  const outcome = await batch.execute(args, {
    signal: link.signal,
    ...(sender === undefined
      ? {}
      : {
          onProgress: (event: BatchProgressEvent) => {
            if (event.type !== 'task') return;
            count += 1;
            sender.push({ progress: count, message: taskProgressText(event) });
          },
        }),
  });
  await sender?.delivered();
  const text = batch.resultText(outcome);
  return { content: [{ type: 'text', text }], structuredContent: { text, ...outcome } };
}
