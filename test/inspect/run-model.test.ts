import { describe, expect, it } from 'vitest';
import {
  buildRunModel,
  createRalphEngine,
  createRunModelBuilder,
  createScriptedProvider,
  MAX_ROUNDS_INVALID,
  normalizeConfig,
  RecordingError,
  type RunModel,
  type RunModelBuilder,
  replayRecording,
  WORKFLOW_CANCELLED,
} from '../../src/index.js';
import { blockedAt, completeAt, continueAt, faultTool, useOwnTmpdir } from '../faults/harness.js';
import { until, useScratch } from '../support/processes.js';
import { recordRun } from './record-run.js';

useOwnTmpdir();
const s = useScratch();

const states = (model: RunModel) => model.path.map((entry) => entry.state);
const STARTED = ['running.round.starting', 'running.round.awaitingReport'];
// A round that reported: started, then its report checked and accepted (the decision after a report).
const ROUND_TRIP = [...STARTED, 'running.reviewingReport.checking', 'running.reviewingReport.accepted'];

describe('the run model of a recording', () => {
  it('a three-round complete run: facts, the path with its eventless states, one entry per round, the ending', async () => {
    const run = await recordRun(s, { plan: ['continue', 'continue', 'complete'] });
    if (!run.result.ok) throw run.result.error;
    const { envelope } = run.result;
    const model = buildRunModel(run.text);

    expect(model).toMatchObject({
      recording: { formatVersion: 3, machineHash: expect.stringMatching(/^sha256:/) },
      runId: envelope.runId,
      objective: 'Replay this loop',
      maxRounds: 5,
      agentsStarted: 3,
    });
    expect(Date.parse(model.startedAt)).not.toBeNaN();
    expect(states(model)).toEqual(['validating', ...ROUND_TRIP, ...ROUND_TRIP, ...ROUND_TRIP, 'complete']);
    const times = model.path.map((entry) => entry.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));

    expect(model.rounds.map(({ round, outcome, report }) => ({ round, outcome, report }))).toEqual([
      { round: 1, outcome: 'continue', report: continueAt(1) },
      { round: 2, outcome: 'continue', report: continueAt(2) },
      { round: 3, outcome: 'complete', report: completeAt(3) },
    ]);
    model.rounds.forEach((round, index) => {
      expect(round.childId).toMatch(new RegExp(`^${envelope.runId}-r${index + 1}-pid\\d+$`));
      expect(round.endedAt).not.toBeNull();
      expect(round.endedAt as number).toBeGreaterThanOrEqual(round.startedAt);
      if (index > 0) expect(round.startedAt).toBe(model.rounds[index - 1]?.endedAt);
    });
    expect(model.ending).toEqual({
      finalState: 'complete',
      at: expect.any(Number),
      result: { ok: true, envelope },
    });
  });

  it.each([
    {
      name: 'blocked',
      plan: ['continue', 'blocked'],
      outcomes: ['continue', 'blocked'],
      finalState: 'blocked',
      last: blockedAt(2),
    },
    {
      name: 'budget-limited',
      plan: ['continue'],
      args: { objective: 'Never done', maxRounds: 2 },
      outcomes: ['continue', 'budget-limited'],
      finalState: 'budgetLimited',
      last: continueAt(2),
    },
    {
      name: 'a crashed child',
      plan: ['continue', 'crash'],
      outcomes: ['continue', 'failed'],
      finalState: 'failed',
      last: null,
    },
    {
      name: 'a malformed report',
      plan: ['garbage-file'],
      outcomes: ['failed'],
      finalState: 'failed',
      last: null,
    },
  ])('$name: each round says what became of it', async ({ outcomes, finalState, last, ...row }) => {
    const run = await recordRun(s, row);
    const model = buildRunModel(run.lines);
    expect(model.rounds.map((round) => round.outcome)).toEqual(outcomes);
    expect(model.rounds.at(-1)?.report).toEqual(last);
    expect(model.ending?.finalState).toBe(finalState);
    expect(model.ending?.result).toEqual(run.output);
    expect(states(model).at(-1)).toBe(finalState);
  });

  it('a malformed report passes through reviewingReport on its way to failed; a crash does not', async () => {
    const malformed = buildRunModel((await recordRun(s, { plan: ['garbage-file'] })).text);
    expect(states(malformed)).toEqual([
      'validating',
      ...STARTED,
      'running.reviewingReport.checking',
      'failed',
    ]);
    const crashed = buildRunModel((await recordRun(s, { plan: ['crash'] })).text);
    expect(states(crashed)).toEqual(['validating', ...STARTED, 'failed']);
  });

  it('a cancelled run: its round was cancelled, the path goes through cancelling', async () => {
    const run = await recordRun(s, { plan: ['continue', 'hang'], cancelOnceLogged: 2 });
    const model = buildRunModel(run.text);
    expect(states(model).slice(-2)).toEqual(['cancelling.child', 'cancelled']);
    expect(model.rounds.map((round) => round.outcome)).toEqual(['continue', 'cancelled']);
    expect(model.rounds[1]?.report).toBeNull();
    expect(model.ending).toMatchObject({
      finalState: 'cancelled',
      result: { ok: false, failure: { code: 'cancelled', message: WORKFLOW_CANCELLED, round: 2 } },
    });
  });

  it('a refused call: what it sent, no round, no cap', async () => {
    const run = await recordRun(s, { args: { objective: 'Nothing', maxRounds: 0 } });
    const model = buildRunModel(run.text);
    expect(model).toMatchObject({ objective: 'Nothing', maxRounds: null, agentsStarted: 0, rounds: [] });
    expect(states(model)).toEqual(['validating', 'rejected']);
    expect(model.ending?.result).toEqual({
      ok: false,
      failure: { code: 'refused', message: MAX_ROUNDS_INVALID },
    });
  });
});

describe('a run of 256 rounds', () => {
  it('records, replays and models every round', async () => {
    const steps = Array.from({ length: 256 }, (_, i) => ({
      report: i < 255 ? continueAt(i + 1) : completeAt(i + 1),
    }));
    const run = await recordRun(s, {
      provider: createScriptedProvider(steps),
      args: { objective: 'All the rounds', maxRounds: 256 },
    });
    expect(run.final.value).toBe('complete');

    expect(replayRecording(run.text).outcome).toEqual(run.output);
    const model = buildRunModel(run.text);
    expect(model.rounds).toHaveLength(256);
    expect(model.rounds.filter((round) => round.outcome === 'continue')).toHaveLength(255);
    expect(model.rounds.at(-1)).toMatchObject({ round: 256, outcome: 'complete', report: completeAt(256) });
    expect(model.path).toHaveLength(1 + ROUND_TRIP.length * 256 + 1);
  });
});

describe('the run model builder, fed live', () => {
  it('follows a run as its lines arrive: the running round, then how it ended', async () => {
    let builder: RunModelBuilder | undefined;
    const sink = {
      write(line: string) {
        if (builder === undefined) builder = createRunModelBuilder(line);
        else builder.add(line);
      },
    };
    const { providers } = faultTool(s, { plan: ['continue', 'hang'] });
    const controller = new AbortController();
    const run = createRalphEngine().start(
      {
        args: { objective: 'Watch me' },
        agent: { id: 'live-parent', cwd: s.workspace },
        config: normalizeConfig({ subagentProvider: 'command' }),
        provider: providers.get('command'),
      },
      { signal: controller.signal, record: sink },
    );
    const model = () => builder?.model;
    await until(() => model()?.rounds[1]?.childId != null, "round 2's child to show");

    expect(model()?.ending).toBeNull();
    expect(model()?.rounds.map((round) => round.outcome)).toEqual(['continue', 'running']);
    expect(model()?.rounds[1]?.endedAt).toBeNull();
    expect(model()?.path.at(-1)?.state).toBe('running.round.awaitingReport');

    controller.abort();
    await run.result.catch(() => {});
    expect(model()?.rounds.map((round) => round.outcome)).toEqual(['continue', 'cancelled']);
    expect(model()?.ending?.finalState).toBe('cancelled');
  });

  it('fed the lines as JSON text, builds what the whole recording builds', async () => {
    const run = await recordRun(s, { plan: ['continue', 'complete'] });
    const [header, ...lines] = run.lines;
    const builder = createRunModelBuilder(header as string);
    for (const line of lines) builder.add(line);
    expect(builder.model).toEqual(buildRunModel(run.text));
  });

  it('refuses a line that is not one, naming its line number', async () => {
    const run = await recordRun(s, { plan: ['complete'] });
    const builder = createRunModelBuilder(run.lines[0] as string);
    builder.add(run.lines[1] as string);
    expect(() => builder.add('{"type":"@xstate.nonsense","t":3}')).toThrow(RecordingError);
    expect(() => builder.add('not json')).toThrow(/^line 4: is not JSON/);
  });
});
