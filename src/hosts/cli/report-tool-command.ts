import { DEFAULT_MAX_HANDOFF_CHARS } from '../../contract/config.js';
import { packageVersion } from '../../package-root.js';
import { RALPH_MAX_HANDOFF_CHARS_ENV } from '../../providers/command.js';
import { EXIT } from './exit-codes.js';

/** The options of `ralph report-tool`; each falls back on the round's environment. */
export interface ReportToolCommandOptions {
  /** Where a valid report goes; default $RALPH_REPORT_FILE. */
  reportFile?: string;
  /** The handoff cap; default $RALPH_MAX_HANDOFF_CHARS, else the run's default cap. */
  maxHandoffChars?: string;
  /** Serve an evaluator's `submit_verdict` tool instead of the round's `submit_report`. */
  verdict?: boolean;
}

/** Refusal: the report tool was started with no report file to write. */
export const REPORT_TOOL_NO_FILE =
  'ralph report-tool needs the round report file: pass --report-file <file> or set RALPH_REPORT_FILE (ralph sets it for every round)';

/** Refusal: the handoff cap given to the report tool is not a positive whole number. */
export function reportToolCapInvalid(text: string): string {
  return `ralph report-tool: the handoff cap must be a positive whole number (got "${text}")`;
}

/** The cap as a number, or undefined when it is not a positive whole number. */
function capOf(text: string): number | undefined {
  const value = /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  return Number.isSafeInteger(value) && value >= 1 ? value : undefined;
}

/**
 * `ralph report-tool`: serves the `submit_report` tool over MCP on stdio until the client goes away, for an agent CLI
 * with no schema flag of its own. Refused (exit 2, on stderr) without a report file or with a bad cap.
 */
export async function reportToolCommand(options: ReportToolCommandOptions): Promise<number> {
  const reportFile = options.reportFile ?? process.env.RALPH_REPORT_FILE ?? '';
  if (reportFile.trim() === '') {
    process.stderr.write(`${REPORT_TOOL_NO_FILE}\n`);
    return EXIT.refused;
  }
  const capText = options.maxHandoffChars ?? process.env[RALPH_MAX_HANDOFF_CHARS_ENV];
  const maxHandoffChars = capText === undefined ? DEFAULT_MAX_HANDOFF_CHARS : capOf(capText);
  if (maxHandoffChars === undefined) {
    process.stderr.write(`${reportToolCapInvalid(capText ?? '')}\n`);
    return EXIT.refused;
  }
  const [{ createReportToolServer }, { StdioServerTransport }] = await Promise.all([
    import('../mcp/report-tool.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ]);
  const server = await createReportToolServer({
    reportFile,
    maxHandoffChars,
    version: packageVersion(),
    ...(options.verdict === true ? { verdict: true } : {}),
  });
  const closed = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await server.connect(new StdioServerTransport());
  await closed;
  await server.close();
  process.stdin.destroy();
  return EXIT.complete;
}
