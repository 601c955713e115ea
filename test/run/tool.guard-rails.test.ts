import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isRunning, until, useScratch } from '../support/processes.js';
import { completeReport, continueReport } from '../support/round-reports.js';
import { rejection, scriptedTool } from '../support/tool.js';

const stubbornCheck = fileURLToPath(new URL('../fixtures/cli-agents/stubborn-check.mjs', import.meta.url));
const s = useScratch();
const caller = () => ({ id: 'parent-agent', cwd: s.workspace });

describe('the verify command, run for real by the tool', () => {
  it('CANCEL while it runs stops its whole group before the call settles cancelled', async () => {
    const pidFile = join(s.logs, 'check.pid');
    const { tool } = scriptedTool([{ report: completeReport() }], {
      terminationGraceMs: 200,
      verify: { argv: [process.execPath, stubbornCheck, pidFile] },
    });
    const controller = new AbortController();
    const call = tool.execute({ objective: 'Ship it' }, { agent: caller(), signal: controller.signal });
    await until(
      () => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '',
      'the verify command to start',
    );
    const pid = Number(readFileSync(pidFile, 'utf8'));
    controller.abort();
    const error = await rejection(call);
    expect(error.code).toBe('cancelled');
    expect(error.message).toBe('Ralph workflow was cancelled');
    expect(isRunning(pid), 'the verify command outlived the cancelled run').toBe(false);
  });

  it('one that cannot start fails the workflow, naming the command', async () => {
    const { tool } = scriptedTool([{ report: completeReport() }], {
      verify: { argv: [join(s.workspace, 'no-such-check')] },
    });
    const error = await rejection(tool.execute({ objective: 'Ship it' }, { agent: caller() }));
    expect(error.code).toBe('workflow-failed');
    expect(error.message).toMatch(
      /^Ralph workflow failed: round 1 reported complete, but the verify command `\S+no-such-check` could not start: /,
    );
  });

  it('one that runs past its timeout is stopped and counts as failed, round after round up to the cap', async () => {
    const pidFile = join(s.logs, 'check.pid');
    const { tool } = scriptedTool([{ report: completeReport('one') }, { report: completeReport('two') }], {
      terminationGraceMs: 100,
      verify: { argv: [process.execPath, stubbornCheck, pidFile], timeoutMs: 300 },
    });
    const envelope = await tool.execute({ objective: 'Ship it', maxRounds: 2 }, { agent: caller() });
    expect(envelope.result.status).toBe('budget-limited');
    expect(envelope.result.rounds).toBe(2);
    expect(envelope.result.report.status).toBe('continue');
    expect(envelope.result.report.summary).toBe('two');
    expect(envelope.result.report.nextSteps[0]).toContain('timed out after 300ms and was stopped');
    expect(isRunning(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
  });

  it("hands the next round the end of a failing command's output, cut to fit the handoff cap", async () => {
    const { tool } = scriptedTool([{ report: completeReport('premature') }], {
      maxHandoffChars: 700,
      verify: {
        argv: [
          process.execPath,
          '-e',
          'process.stdout.write("x".repeat(9000) + "THE END"); process.exitCode = 1',
        ],
      },
    });
    const envelope = await tool.execute({ objective: 'Ship it', maxRounds: 1 }, { agent: caller() });
    expect(envelope.result.status).toBe('budget-limited');
    const handoff = envelope.result.report;
    expect(JSON.stringify(handoff).length).toBeLessThanOrEqual(700);
    expect(handoff.nextSteps).toHaveLength(1);
    expect(handoff.nextSteps[0]).toMatch(/exited with status 1 after .*\nThe end of its output:\nx+THE END$/);
  });
});

describe('with no guard rail set', () => {
  it('the envelope has exactly the reference fields, in the reference order', async () => {
    const { tool } = scriptedTool([{ report: continueReport() }, { report: completeReport() }]);
    const envelope = await tool.execute({ objective: 'Ship it' }, { agent: caller() });
    expect(Object.keys(envelope)).toEqual(['runId', 'agentsStarted', 'result']);
    expect(Object.keys(envelope.result)).toEqual(['status', 'rounds', 'report']);
    // The guard rails are the deployment's: a call still sends only these.
    expect(Object.keys(tool.jsonSchema.properties)).toEqual(['objective', 'maxRounds']);
  });
});
