import { join } from 'node:path';
import { DEFAULT_MAX_HANDOFF_CHARS } from '../contract/config.js';
import type { ChildRequest } from '../contract/types.js';
import { packageRoot } from '../package-root.js';

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
    ],
  };
}
