import { writeFileSync } from 'node:fs';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { reviewVerdict, verdictJsonSchemaCopy } from '../../contract/evaluator-verdict.js';
import { reportJsonSchemaCopy } from '../../contract/round-report.js';
import { reviewReport } from '../../contract/round-report-review.js';

/** The one tool of `ralph report-tool`. */
export const REPORT_TOOL_NAME = 'submit_report';

/** The one tool of `ralph report-tool --verdict`, an evaluator's. */
export const VERDICT_TOOL_NAME = 'submit_verdict';

/** The answer to a report that was written to the report file. */
export const REPORT_RECORDED = 'recorded: this round is reported; end your turn now';

/** The answer to a report the round's rules refuse: what is wrong, and that the model may call again. */
export function reportRefused(problem: string, tool: string = REPORT_TOOL_NAME): string {
  const what = tool === REPORT_TOOL_NAME ? 'report' : 'verdict';
  return `not recorded: ${problem}. Correct the ${what} and call ${tool} again`;
}

/** What the report tool serves for: one round's report file and handoff cap. */
export interface ReportToolOptions {
  /** Where a valid report is written (the round's RALPH_REPORT_FILE). */
  reportFile: string;
  /** The handoff cap, in characters of the report's JSON, as the run measures it. */
  maxHandoffChars: number;
  /** The server's version in the MCP handshake. */
  version?: string;
  /** Serve an evaluator's `submit_verdict` (the verdict's schema and rules) instead of `submit_report`. */
  verdict?: boolean;
}

/** The evaluator's tool as `tools/list` shows it: the verdict's own JSON Schema as its input. */
export function verdictToolDefinition(): Tool {
  return {
    name: VERDICT_TOOL_NAME,
    title: 'Submit the verdict',
    description:
      'Give your verdict on the reported completion to the Ralph loop: call it once, as your last action. It answers ' +
      '"recorded" when the verdict fits the rules; otherwise it says what is wrong, and you call it again.',
    inputSchema: verdictJsonSchemaCopy() as Tool['inputSchema'],
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
}

/**
 * The answer to one `submit_verdict` call: the arguments reviewed by the verdict's rules and the cap, written to the
 * report file when they fit (a later valid call replaces it).
 */
export function submitVerdict(args: unknown, options: ReportToolOptions): CallToolResult {
  const review = reviewVerdict(args, options.maxHandoffChars);
  switch (review.state) {
    case 'missing':
      return text(reportRefused('the call carried no verdict', VERDICT_TOOL_NAME), true);
    case 'malformed':
      return text(reportRefused(review.problem, VERDICT_TOOL_NAME), true);
    case 'oversized':
      return text(
        reportRefused(
          `the verdict is ${review.size} characters of JSON, over the cap of ${options.maxHandoffChars}; shorten it`,
          VERDICT_TOOL_NAME,
        ),
        true,
      );
    case 'given':
      writeFileSync(options.reportFile, `${JSON.stringify(review.verdict)}\n`);
      return text(REPORT_RECORDED, false);
  }
}

/** The tool as `tools/list` shows it: the report's own JSON Schema as its input. */
export function reportToolDefinition(): Tool {
  return {
    name: REPORT_TOOL_NAME,
    title: 'Submit the round report',
    description:
      'Report this round to the Ralph loop: call it once, as your last action, with your structured round report. ' +
      'It answers "recorded" when the report fits the rules; otherwise it says what is wrong, and you call it again ' +
      'with a corrected report.',
    inputSchema: reportJsonSchemaCopy() as Tool['inputSchema'],
    // Read-only for the agent's world: its one write is the round's own report file in ralph's temporary folder, never
    // the workspace. Agents that gate MCP tools by these hints (Droid asks for `--auto high` otherwise) let it run.
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  };
}

const text = (said: string, isError: boolean): CallToolResult => ({
  content: [{ type: 'text', text: said }],
  ...(isError ? { isError: true } : {}),
});

/**
 * The answer to one `submit_report` call: the arguments reviewed by the run's own checks (the report schema, the
 * status rules, the handoff cap), written to the report file when accepted (a later valid call replaces it).
 */
export function submitReport(args: unknown, options: ReportToolOptions): CallToolResult {
  const review = reviewReport(args, options.maxHandoffChars);
  switch (review.verdict) {
    case 'missing':
      return text(reportRefused('the call carried no report'), true);
    case 'malformed':
      return text(reportRefused(review.problem), true);
    case 'oversized':
      return text(
        reportRefused(
          `the report is ${review.size} characters of JSON, over the handoff cap of ${options.maxHandoffChars}; shorten it`,
        ),
        true,
      );
    case 'accepted':
      writeFileSync(options.reportFile, `${JSON.stringify(review.report)}\n`);
      return text(REPORT_RECORDED, false);
  }
}

/**
 * Creates the report tool's MCP server, not yet connected. The SDK's low-level `Server`, so that only the run's
 * own checks judge a call and the model reads their exact problem (the SDK would answer with its own validation text).
 */
export async function createReportToolServer(options: ReportToolOptions): Promise<Server> {
  const [{ Server }, { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError }] =
    await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
  const server = new Server(
    { name: 'ralph-report', version: options.version ?? '0.0.0' },
    { capabilities: { tools: {} } },
  );
  const verdict = options.verdict === true;
  const tool = verdict ? verdictToolDefinition() : reportToolDefinition();
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [tool] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name !== tool.name) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    }
    return verdict
      ? submitVerdict(request.params.arguments, options)
      : submitReport(request.params.arguments, options);
  });
  return server;
}
