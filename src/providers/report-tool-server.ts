import { join } from 'node:path';
import { DEFAULT_MAX_HANDOFF_CHARS } from '../contract/config.js';
import type { ChildRequest } from '../contract/types.js';
import { packageRoot } from '../package-root.js';
import { type CommandOutputs, DEFAULT_MAX_OUTPUT_BYTES, defaultReportReader } from './command.js';

/** The name under which a preset registers the report tool's MCP server with its agent for one round. */
export const REPORT_TOOL_SERVER = 'ralph_report';

/** How an agent CLI starts ralph's report tool (`ralph report-tool`) as a stdio MCP server. */
export interface ReportToolServer {
  command: string;
  args: string[];
}

/**
 * The report tool for one round: this Node running ralph's own CLI, with the round's report file and handoff cap on
 * its command line (an agent may start its MCP servers with an environment of its own choosing, without ralph's).
 */
export function reportToolServer(request: ChildRequest, reportFile: string): ReportToolServer {
  return {
    command: process.execPath,
    args: [
      join(packageRoot('the report tool'), 'dist', 'hosts', 'cli', 'main.js'),
      'report-tool',
      '--report-file',
      reportFile,
      '--max-handoff-chars',
      String(request.maxHandoffChars ?? DEFAULT_MAX_HANDOFF_CHARS),
      // An evaluator answers with a verdict, checked by the verdict's own rules.
      ...(request.role === 'evaluator' ? ['--verdict'] : []),
    ],
  };
}

/**
 * The report of a report-tool round: the report file alone. The agent's stdout is its own output (a result, an event
 * stream), never a report, so a round whose model never called the tool is a missing report.
 */
export function reportToolReader(maxOutputBytes = DEFAULT_MAX_OUTPUT_BYTES) {
  const read = defaultReportReader(maxOutputBytes);
  return (outputs: CommandOutputs): Promise<unknown> => read({ ...outputs, stdout: '' });
}
