import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { verdictJsonSchema } from '../../src/contract/evaluator-verdict.js';
import { reportJsonSchema } from '../../src/index.js';
import { CLI, ralph } from '../fixtures/cli-agents/harness.js';

const folders: string[] = [];
const clients: Client[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Starts `ralph report-tool` for a fresh round folder, with the round's environment, and connects the SDK's client. */
async function connect(env: Record<string, string> = {}, extraArgs: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-report-tool-'));
  folders.push(dir);
  const reportFile = join(dir, 'report.json');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'report-tool', ...extraArgs],
    env: { RALPH_REPORT_FILE: reportFile, ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'report-tool-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  const submit = async (report: unknown, name = 'submit_report') =>
    (await client.callTool({
      name,
      arguments: report as Record<string, unknown>,
    })) as CallToolResult;
  return { client, reportFile, submit };
}

const textOf = (result: CallToolResult): string =>
  result.content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');

const complete = {
  status: 'complete',
  summary: 'Added the greeting.',
  evidence: ['npm test: 3 passed'],
  nextSteps: [],
  blocker: null,
};

describe('ralph report-tool serves one tool, submit_report, whose input schema is the report schema', () => {
  it('lists exactly that tool', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['submit_report']);
    expect(tools[0]?.inputSchema).toEqual(reportJsonSchema);
  });

  it('is annotated read-only: its one write is the round report file, so agents that gate tools (Droid) let it run', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools[0]?.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });
});

describe('a valid report is written to $RALPH_REPORT_FILE and answered "recorded"', () => {
  it('writes the report as JSON', async () => {
    const { reportFile, submit } = await connect();
    const result = await submit(complete);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/^recorded/);
    expect(JSON.parse(readFileSync(reportFile, 'utf8'))).toEqual(complete);
  });
});

describe('an invalid report is answered with its exact problem, as an error, and nothing is written', () => {
  it('a complete report without evidence, then corrected within the round', async () => {
    const { reportFile, submit } = await connect();
    const refused = await submit({ ...complete, evidence: [] });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('a complete report must carry evidence');
    expect(textOf(refused)).toContain('call submit_report again');
    expect(existsSync(reportFile)).toBe(false);

    const corrected = await submit(complete);
    expect(corrected.isError).toBeFalsy();
    expect(JSON.parse(readFileSync(reportFile, 'utf8'))).toEqual(complete);
  });

  it('a report that breaks the schema (an extra field, a status it does not know)', async () => {
    const { reportFile, submit } = await connect();
    const refused = await submit({ ...complete, status: 'done', extra: 1 });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/status/);
    expect(textOf(refused)).toMatch(/extra/);
    expect(existsSync(reportFile)).toBe(false);
  });

  it('a report past the handoff cap the round gave in RALPH_MAX_HANDOFF_CHARS', async () => {
    const { reportFile, submit } = await connect({ RALPH_MAX_HANDOFF_CHARS: '200' });
    const long = { ...complete, summary: 'x'.repeat(300) };
    const refused = await submit(long);
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain(`the report is ${JSON.stringify(long).length} characters of JSON`);
    expect(textOf(refused)).toContain('over the handoff cap of 200');
    expect(existsSync(reportFile)).toBe(false);

    expect((await submit(complete)).isError).toBeFalsy();
    expect(JSON.parse(readFileSync(reportFile, 'utf8'))).toEqual(complete);
  });
});

describe('ralph report-tool refuses to serve without what it needs', () => {
  it('no report file: exit 2 with the message on stderr, nothing on stdout', async () => {
    const out = await ralph(['report-tool'], { env: { RALPH_REPORT_FILE: '' } });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('ralph report-tool needs the round report file');
    expect(out.stdout).toBe('');
  });

  it('a handoff cap that is not a positive whole number: exit 2', async () => {
    const out = await ralph(['report-tool', '--report-file', join(tmpdir(), 'never.json')], {
      env: { RALPH_MAX_HANDOFF_CHARS: '0' },
    });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('the handoff cap must be a positive whole number (got "0")');
  });
});

describe("ralph report-tool --verdict serves an evaluator's one tool, submit_verdict, checked by the verdict's rules", () => {
  it('lists exactly that tool, the verdict schema its input', async () => {
    const { client } = await connect({}, ['--verdict']);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['submit_verdict']);
    expect(tools[0]?.inputSchema).toEqual(verdictJsonSchema);
  });

  it('refuses a reject without findings, then records the corrected verdict; a report is not a verdict', async () => {
    const { client, reportFile, submit } = await connect({}, ['--verdict']);
    const bare = await submit({ verdict: 'reject', findings: [], evidence: [] }, 'submit_verdict');
    expect(bare.isError).toBe(true);
    expect(textOf(bare)).toContain('a reject verdict must name a finding');
    expect(textOf(bare)).toContain('Correct the verdict and call submit_verdict again');
    expect(existsSync(reportFile)).toBe(false);
    const report = await submit(complete, 'submit_verdict');
    expect(report.isError).toBe(true);
    const verdict = { verdict: 'reject', findings: ['add() returns undefined'], evidence: [] };
    const recorded = await submit(verdict, 'submit_verdict');
    expect(textOf(recorded)).toMatch(/^recorded/);
    expect(JSON.parse(readFileSync(reportFile, 'utf8'))).toEqual(verdict);
    await expect(client.callTool({ name: 'submit_report', arguments: complete })).rejects.toThrow(
      /Unknown tool/,
    );
  });
});
