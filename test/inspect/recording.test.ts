import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import {
  createRalphEngine,
  machineHash,
  normalizeConfig,
  RalphError,
  type RalphReport,
  RECORDING_FAILED,
  ralphMachine,
  replayRecording,
} from '../../src/index.js';
import { faultTool, useOwnTmpdir } from '../faults/harness.js';
import { until, useScratch } from '../support/processes.js';
import { completeReport, continueReport } from '../support/round-reports.js';
import { agent, rejection, scriptedTool } from '../support/tool.js';
import { parsed, recordRun } from './record-run.js';

useOwnTmpdir();
const s = useScratch();

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

describe('a run recording', () => {
  it('starts with a header: format and package version, machine hash, start time, run id, result bound', async () => {
    const before = Date.now();
    const run = await recordRun(s, { plan: ['complete'] });
    const [header] = parsed(run);

    expect(header).toEqual({
      type: '@ralph.recording',
      formatVersion: 3,
      packageVersion: packageJson.version,
      machineHash: machineHash(ralphMachine),
      startedAt: expect.any(String),
      runId: run.result.ok ? run.result.envelope.runId : 'none',
      maxResultChars: 16_384,
      t: 0,
    });
    const startedAt = Date.parse(String(header?.startedAt));
    expect(startedAt).toBeGreaterThanOrEqual(before - 1);
    expect(startedAt).toBeLessThanOrEqual(Date.now());
  });

  it('holds one inspection event per line in the shape @statelyai/inspect sends, each with its time', async () => {
    const run = await recordRun(s, { plan: ['continue', 'complete'] });
    const [, ...lines] = parsed(run);
    const root = lines[0];

    expect(root).toMatchObject({ type: '@xstate.actor', name: 'ralph', snapshot: { status: 'active' } });
    expect(root?.parentId).toBeUndefined();
    expect(JSON.parse(String(root?.definition))).toMatchObject({ id: 'ralph', initial: 'validating' });
    expect(new Set(lines.map((line) => line.type))).toEqual(
      new Set(['@xstate.actor', '@xstate.event', '@xstate.microstep', '@xstate.snapshot']),
    );
    let t = 0;
    const ids = new Set<unknown>();
    for (const line of lines) {
      expect(line).toMatchObject({
        sessionId: expect.any(String),
        rootId: root?.sessionId,
        id: expect.any(String),
        createdAt: expect.stringMatching(/^\d+$/),
        _version: expect.any(String),
      });
      expect(Number.isInteger(line.t)).toBe(true);
      expect(line.t as number).toBeGreaterThanOrEqual(t);
      t = line.t as number;
      ids.add(line.id);
      if (line.type === '@xstate.actor' && line !== root) expect(line.parentId).toBe(root?.sessionId);
      if (line.type === '@xstate.event') expect(line.event).toMatchObject({ type: expect.any(String) });
      if (line.type === '@xstate.snapshot')
        expect(line.snapshot).toMatchObject({ status: expect.any(String) });
    }
    expect(ids.size).toBe(lines.length);
    // The call's input is on the machine's first event, the report on the event that brought it.
    const rootEvents = lines.filter(
      (line) => line.type === '@xstate.event' && line.sessionId === root?.sessionId,
    );
    expect(rootEvents[0]?.event).toMatchObject({
      type: 'xstate.init',
      input: { args: { objective: 'Replay this loop' } },
    });
    expect(rootEvents.map((line) => (line.event as { type: string }).type)).toEqual([
      'xstate.init',
      'CHILD_STARTED',
      'xstate.done.actor.runRound',
      'CHILD_STARTED',
      'xstate.done.actor.runRound',
    ]);
  });

  it("keeps each child's report once: a promise actor's lines carry only its event type and its status", async () => {
    const marker = `unique-marker-${'y'.repeat(2000)}`;
    const bulky: RalphReport = {
      status: 'complete',
      summary: marker,
      evidence: ['e'],
      nextSteps: [],
      blocker: null,
    };
    const run = await recordRun(s, { plan: ['report'], report: bulky, config: { maxHandoffChars: 500 } });
    expect(run.final.value).toBe('failed');

    expect(run.text.split(marker).length - 1).toBe(1);
    const [, root, ...rest] = parsed(run);
    for (const line of rest.filter((line) => line.sessionId !== root?.sessionId)) {
      if (line.type === '@xstate.event') expect(Object.keys(line.event as object)).toEqual(['type']);
      if (line.type === '@xstate.snapshot') expect(Object.keys(line.snapshot as object)).toEqual(['status']);
    }
  });

  it('keeps what JSON alone would lose: a child failure message, a provider marker, a forged tag stays data', async () => {
    const crashed = await recordRun(s, { plan: ['crash'] });
    expect(crashed.text).toContain('{"$type":"Error","name":"Error","message":"agent command');

    const forged = { $type: 'Error', message: 'not an error', status: 'complete' };
    const run = await recordRun(s, { plan: ['report'], report: forged });
    expect(run.text).toContain('{"$type":"Object","entries":[["$type","Error"]');
    expect(replayRecording(run.text).outcome).toEqual(run.output);
  });

  it('is written to a file as the run goes, readable by its owner only, and closed once the run settled', async () => {
    const path = join(s.logs, 'run.jsonl');
    const { providers } = faultTool(s, { plan: ['hang'] });
    const controller = new AbortController();
    const run = createRalphEngine().start(
      {
        args: { objective: 'Hang until cancelled' },
        agent: { id: 'record-parent', cwd: s.workspace },
        config: normalizeConfig({ subagentProvider: 'command' }),
        provider: providers.get('command'),
      },
      { signal: controller.signal, record: path },
    );
    const fileLines = () => readFileSync(path, 'utf8').split('\n').filter(Boolean);
    // While the child runs, the file already says the machine awaits its report.
    await until(
      () =>
        fileLines().some(
          (line) =>
            line.includes('"type":"@xstate.snapshot"') &&
            line.includes('"value":{"running":{"round":"awaitingReport"}}'),
        ),
      'the recording to reach awaitingReport',
    );
    expect(statSync(path).mode & 0o777).toBe(0o600);
    controller.abort();
    await expect(run.result).rejects.toThrow(RalphError);

    const replay = replayRecording(readFileSync(path, 'utf8'));
    expect(replay.snapshot.value).toBe('cancelled');
    expect(replay.outcome).toEqual(run.actor?.getSnapshot().output);
  });

  it('goes through createRalphTool: exec.record takes a path', async () => {
    const path = join(s.logs, 'tool.jsonl');
    const { tool } = scriptedTool([{ report: continueReport('one') }, { report: completeReport('two') }]);
    const envelope = await tool.execute({ objective: 'Two rounds' }, { agent, record: path });
    expect(replayRecording(readFileSync(path, 'utf8')).outcome).toEqual({ ok: true, envelope });
  });

  it('refuses a run whose recording file cannot be created, starting nothing', async () => {
    const { tool, provider } = scriptedTool([{ report: completeReport('never') }]);
    const error = await rejection(
      tool.execute({ objective: 'x' }, { agent, record: join(s.logs, 'missing', 'run.jsonl') }),
    );
    expect(error.code).toBe('refused');
    expect(error.message).toMatch(
      /^Ralph could not record the run: cannot create .*missing\/run\.jsonl: ENOENT/,
    );
    expect(provider.requests).toEqual([]);
  });

  it('stops recording when its sink fails, with one warning, and the run goes on', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const { tool } = scriptedTool([{ report: continueReport('one') }, { report: completeReport('two') }]);
      let writes = 0;
      const sink = {
        write() {
          writes += 1;
          if (writes >= 5) throw new Error('disk full');
        },
      };
      const envelope = await tool.execute({ objective: 'Two rounds' }, { agent, record: sink });
      expect(envelope.result.status).toBe('complete');
      await until(() => warnings.length > 0, 'the warning');
      expect(writes).toBe(5);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({
        code: RECORDING_FAILED,
        message: expect.stringContaining('disk full'),
      });
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('the machine hash', () => {
  it('is the sha256 of the configuration: the same for a provided copy, another for a changed machine', () => {
    const hash = machineHash(ralphMachine);
    expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(machineHash(ralphMachine.provide({}))).toBe(hash);
    expect(machineHash(createMachine({ ...ralphMachine.config, initial: 'round' }))).not.toBe(hash);
    const { on: _on, ...roundWithoutCancel } = ralphMachine.config.states?.round ?? {};
    const states = { ...ralphMachine.config.states, round: roundWithoutCancel };
    expect(machineHash(createMachine({ ...ralphMachine.config, states }))).not.toBe(hash);
  });
});
