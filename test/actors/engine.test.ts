import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createRalphEngine, createScriptedProvider, normalizeConfig } from '../../src/index.js';
import { completeReport, continueReport } from '../support/round-reports.js';
import { agent, scriptedTool } from '../support/tool.js';

describe('the engine', () => {
  it.each([0, 257, 1.5])('refuses a ceiling of %s', (maxTotalAgents) => {
    expect(() => createRalphEngine({ maxTotalAgents })).toThrow(RangeError);
  });

  it('runs 50 concurrent loops independently', async () => {
    // One provider per run so that each plays its own three-step script.
    const runs = Array.from({ length: 50 }, (_, i) => {
      const own = scriptedTool(
        [
          { report: continueReport(`run ${i}`), delayMs: i % 7 },
          { report: completeReport(`run ${i}`), delayMs: 3 },
        ],
        { maxRounds: 5 },
      );
      return own.tool
        .execute({ objective: `objective ${i}` }, { agent })
        .then((envelope) => ({ i, envelope, own }));
    });
    const settled = await Promise.all(runs);
    expect(new Set(settled.map((s) => s.envelope.runId)).size).toBe(50);
    for (const { i, envelope, own } of settled) {
      expect(envelope.result).toMatchObject({
        status: 'complete',
        rounds: 2,
        report: { summary: `run ${i}` },
      });
      expect(
        own.provider.requests.every((r) => r.objective === `objective ${i}` && r.runId === envelope.runId),
      ).toBe(true);
    }
  });

  it('runs concurrent loops of one engine on one shared machine, each with its own provider and children', async () => {
    const engine = createRalphEngine();
    const config = normalizeConfig({ subagentProvider: 'scripted' });
    const hanging = createScriptedProvider([{ hang: true }]);
    let hangingStarted: () => void = () => {};
    const hangStarted = new Promise<void>((resolve) => {
      hangingStarted = resolve;
    });
    const cancelled = engine.start({
      args: { objective: 'hang' },
      agent,
      config,
      provider: hanging,
      onProgress: (event) => {
        if (event.type === 'child-started') hangingStarted();
      },
    });
    const runs = Array.from({ length: 20 }, (_, i) => {
      const provider = createScriptedProvider([
        { report: continueReport(`run ${i}`), delayMs: i % 5 },
        { report: completeReport(`run ${i}`), delayMs: (i * 3) % 4 },
      ]);
      return {
        i,
        provider,
        run: engine.start({ args: { objective: `objective ${i}` }, agent, config, provider }),
      };
    });
    await hangStarted;
    cancelled.cancel();
    await expect(cancelled.result).rejects.toMatchObject({ code: 'cancelled' });
    expect(hanging.running).toBe(0);
    for (const { i, provider, run } of runs) {
      expect(run.actor?.logic).toBe(cancelled.actor?.logic);
      const envelope = await run.result;
      expect(envelope.result).toMatchObject({
        status: 'complete',
        rounds: 2,
        report: { summary: `run ${i}` },
      });
      expect(provider.requests.map((r) => [r.runId, r.objective])).toEqual([
        [run.runId, `objective ${i}`],
        [run.runId, `objective ${i}`],
      ]);
    }
  });

  it('exposes the running actor and lets a host cancel a run directly', async () => {
    const engine = createRalphEngine();
    const provider = createScriptedProvider([{ hang: true }]);
    let childStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      childStarted = resolve;
    });
    const run = engine.start({
      args: { objective: 'x' },
      agent,
      config: normalizeConfig({ subagentProvider: 'scripted' }),
      provider,
      onProgress: (event) => {
        if (event.type === 'child-started') childStarted();
      },
    });
    // Waits on the event, not on a timer: on a busy machine the child may take longer than any fixed pause.
    await started;
    expect(run.actor?.getSnapshot().value).toEqual({ running: { round: 'awaitingReport' } });
    run.cancel();
    await expect(run.result).rejects.toThrow('Ralph workflow was cancelled');
    expect(run.actor?.getSnapshot().value).toBe('cancelled');
    expect(provider.running).toBe(0);
    run.dispose();
  });

  it('carries on when onProgress throws, delivers every later event, and warns once per run', async () => {
    // In a process of its own: before the fix the listener's error was re-thrown from a timer and killed it.
    const host = fileURLToPath(new URL('./hosts/throwing-on-progress.ts', import.meta.url));
    const { code, stdout, stderr } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
    }>((resolve) => {
      const child = execFile(process.execPath, ['--import', 'tsx', host], (_, stdout, stderr) =>
        resolve({ code: child.exitCode, stdout, stderr }),
      );
    });
    expect(stderr, 'what the host printed on stderr').not.toMatch(/^Error: host bug/m);
    expect(code, 'the host exit code').toBe(0);
    const { runs, warnings } = JSON.parse(stdout) as {
      runs: { status: string; seen: string[] }[];
      warnings: { name: string; code: string; message: string }[];
    };
    const everyEvent = [
      'round-started 1',
      'child-started 1',
      'report-accepted 1',
      'round-started 2',
      'child-started 2',
      'report-accepted 2',
    ];
    expect(runs).toEqual([
      { status: 'complete', seen: everyEvent },
      { status: 'complete', seen: everyEvent },
    ]);
    expect(warnings).toEqual([
      {
        name: 'RalphWarning',
        code: 'RALPH_ON_PROGRESS_THREW',
        message: expect.stringMatching(/onProgress threw: host bug on round-started/),
      },
      {
        name: 'RalphWarning',
        code: 'RALPH_ON_PROGRESS_THREW',
        message: expect.stringMatching(/onProgress threw: host bug on round-started/),
      },
    ]);
  });
});
