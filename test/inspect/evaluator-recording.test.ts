import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildRunModel,
  createProviderRegistry,
  createRalphTool,
  createScriptedProvider,
  type RalphProgressEvent,
  RecordingError,
  replayRecording,
  resumePointOf,
  type ScriptedStep,
} from '../../src/index.js';
import { until } from '../support/processes.js';
import { completeReport, continueReport } from '../support/round-reports.js';
import { rejection } from '../support/tool.js';
import { editLine, rootLines } from './record-run.js';

const workspace = mkdtempSync(join(tmpdir(), 'ralph-evaluator-recording-'));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

const OBJECTIVE = 'Port the parser';
const ACCEPT = { verdict: 'accept', findings: [], evidence: ['the parser tests pass'] };
const REJECT = { verdict: 'reject', findings: ['the lexer is a stub'], evidence: [] };

/** A tool whose rounds are `worker`'s steps and whose evaluations are `judge`'s (none: a run without an evaluator). */
function evaluatedTool(worker: ScriptedStep[], judge?: ScriptedStep[]) {
  const providers = createProviderRegistry();
  const rounds = createScriptedProvider(worker, { name: 'worker' });
  providers.register(rounds);
  const evaluator = judge === undefined ? undefined : createScriptedProvider(judge, { name: 'judge' });
  if (evaluator !== undefined) providers.register(evaluator);
  const tool = createRalphTool(
    { subagentProvider: 'worker', ...(evaluator === undefined ? {} : { evaluator: { provider: 'judge' } }) },
    { providers },
  );
  return { tool, rounds, evaluator };
}

const agent = { id: 'evaluator-recording', cwd: workspace };

/** Records a run to completion, with what its host was told. */
async function recordSettled(worker: ScriptedStep[], judge: ScriptedStep[]) {
  const { tool } = evaluatedTool(worker, judge);
  const lines: string[] = [];
  const progress: RalphProgressEvent[] = [];
  const envelope = await tool.execute(
    { objective: OBJECTIVE, maxRounds: 3 },
    { agent, record: { write: (line) => lines.push(line) }, onProgress: (event) => progress.push(event) },
  );
  return { text: lines.join(''), envelope, progress };
}

/**
 * The lines a host had recorded once its run rested while round 1's evaluator checked the completion (the evaluator
 * hangs): what a host killed right then leaves.
 */
async function recordingCutWhileEvaluating() {
  const report = completeReport('the parser is ported');
  const { tool } = evaluatedTool([{ report }], [{ hang: true }]);
  const lines: string[] = [];
  const controller = new AbortController();
  const run = tool.execute(
    { objective: OBJECTIVE, maxRounds: 3 },
    { agent, signal: controller.signal, record: { write: (line) => lines.push(line) } },
  );
  // The root's snapshot resting there (the machine's definition names the state too, so its value is matched).
  const resting = () =>
    lines.some((line) => line.includes('"value":{"running":{"evaluating":"awaitingVerdict"}}'));
  await until(resting, 'the run to rest while its evaluator checks round 1');
  const cut = lines.join('');
  controller.abort();
  await rejection(run);
  return { text: cut, report };
}

describe('a run with an evaluator is recorded and replayed', () => {
  it('replays a reject then an accept to the live outcome, emitting what the host was told', async () => {
    const live = await recordSettled(
      [{ report: completeReport('round 1') }, { report: completeReport('round 2') }],
      [{ report: REJECT }, { report: ACCEPT }],
    );
    expect(live.envelope.result).toMatchObject({
      status: 'complete',
      rounds: 2,
      evaluation: { round: 2, verdict: 'accept', evaluatorsStarted: 2 },
    });

    const replay = replayRecording(live.text);

    expect(replay.outcome).toEqual({ ok: true, envelope: live.envelope });
    expect(replay.steps.flatMap((step) => step.emitted)).toEqual(live.progress);
    expect(live.progress.map((event) => event.type)).toContain('evaluator-finished');
    // No provider is asked anything: the verdicts come from the recording.
    expect(replay.steps.map((step) => step.event.type)).toContain('xstate.done.actor.awaitVerdict');
  });
});

describe('the recorded evaluations are data: a tampered one is refused, naming its line', () => {
  const verdictLine = (text: string) =>
    rootLines(text, '@xstate.event', 'xstate.done.actor.awaitVerdict')[0] as number;
  const tamper = (text: string, edit: (outcome: Record<string, unknown>) => void) =>
    editLine(text, verdictLine(text), (line) => {
      edit((line.event as { output: Record<string, unknown> }).output);
      return line;
    });

  it.each([
    [
      'changedFiles no list',
      (o: Record<string, unknown>) => (o.changedFiles = 'src/lexer.ts (changed)'),
      'changedFiles',
    ],
    ['a changed file no string', (o: Record<string, unknown>) => (o.changedFiles = [42]), 'changedFiles.0'],
    [
      'a changed file past any path',
      (o: Record<string, unknown>) => (o.changedFiles = ['x'.repeat(5000)]),
      'changedFiles.0',
    ],
    [
      'more changed files than any watch names',
      (o: Record<string, unknown>) => (o.changedFiles = Array(100_001).fill('a (added)')),
      'changedFiles',
    ],
    [
      'a usage that spends less than nothing',
      (o: Record<string, unknown>) => (o.usage = { costUsd: -5 }),
      'usage.costUsd',
    ],
    ['a usage of unknown fields', (o: Record<string, unknown>) => (o.usage = { credits: 3 }), 'usage'],
  ])('%s', async (_name, edit, path) => {
    const { text } = await recordSettled([{ report: completeReport() }], [{ report: ACCEPT }]);
    const tampered = tamper(text, edit);
    const line = verdictLine(text);
    const expected = new RegExp(
      `^line ${line}: has an evaluation outcome that is not one \\(${path.replace('.', '\\.')}: `,
    );
    // Replay, the report and resume read it alike.
    for (const read of [replayRecording, buildRunModel]) {
      expect(() => read(tampered)).toThrow(RecordingError);
      expect(() => read(tampered)).toThrow(expected);
    }
  });

  it('an envelope whose evaluation is not one (the report page shows it) is refused too', async () => {
    const { text } = await recordSettled([{ report: completeReport() }], [{ report: ACCEPT }]);
    const last = rootLines(text, '@xstate.snapshot').at(-1) as number;
    const tampered = editLine(text, last, (line) => {
      const output = (
        line.snapshot as { output: { envelope: { result: { evaluation: Record<string, unknown> } } } }
      ).output;
      output.envelope.result.evaluation.verdict = 'probably';
      return line;
    });
    expect(() => buildRunModel(tampered)).toThrow(
      new RegExp(
        `^line ${last}: has a snapshot whose output is not a run's result \\(.*evaluation\\.verdict`,
      ),
    );
  });

  it("the raw verdict stays the machine's to review: an edited one replays to the path it leads to, or is refused", async () => {
    const { text } = await recordSettled([{ report: completeReport() }], [{ report: ACCEPT }]);
    // Still a verdict the rules accept, and the recorded snapshots no longer the machine's: the replay says where.
    const tampered = tamper(text, (outcome) => {
      outcome.output = REJECT;
    });
    expect(() => replayRecording(tampered)).toThrow(
      /the machine goes from running\.reviewingVerdict\.decided to/,
    );
  });
});

describe('resumePointOf a run that stopped while its evaluator checked a completion', () => {
  it('picks up with that evaluation: the round done, its complete report the handoff, evaluating', async () => {
    const { text, report } = await recordingCutWhileEvaluating();
    expect(resumePointOf(text)).toMatchObject({
      args: { objective: OBJECTIVE, maxRounds: 3 },
      point: {
        round: 1,
        handoff: report,
        agentsStarted: 1,
        usage: null,
        uncountedRounds: [1],
        evaluating: true,
      },
      lastState: 'running.evaluating.awaitingVerdict',
      forcedExit: false,
    });
    // While its evaluator was starting, or being stopped on a cancel, alike.
    for (const [value, state] of [
      ['{"running":{"evaluating":"starting"}}', 'running.evaluating.starting'],
      ['{"cancelling":"evaluator"}', 'cancelling.evaluator'],
    ] as const) {
      const at = text.lastIndexOf('{"running":{"evaluating":"awaitingVerdict"}}');
      const edited = `${text.slice(0, at)}${value}${text.slice(at + '{"running":{"evaluating":"awaitingVerdict"}}'.length)}`;
      expect(resumePointOf(edited)).toMatchObject({
        point: { round: 1, evaluating: true },
        lastState: state,
      });
    }
  });

  it('continues through the tool: a fresh evaluator checks round 1 again; no round runs again', async () => {
    const { text, report } = await recordingCutWhileEvaluating();
    const recorded = resumePointOf(text);
    const { tool, rounds, evaluator } = evaluatedTool(
      [{ report: continueReport('never run') }],
      [{ report: ACCEPT }],
    );

    const envelope = await tool.execute(recorded.args, {
      agent,
      resume: { runId: recorded.runId, point: recorded.point },
    });

    expect(envelope).toMatchObject({
      runId: recorded.runId,
      agentsStarted: 1,
      result: { status: 'complete', rounds: 1, report, evaluation: { round: 1, verdict: 'accept' } },
    });
    expect(rounds.requests).toEqual([]);
    expect(evaluator?.requests.map((r) => [r.runId, r.round, r.role])).toEqual([
      [recorded.runId, 1, 'evaluator'],
    ]);
  });

  it('refuses to continue it without an evaluator, starting nothing', async () => {
    const { text } = await recordingCutWhileEvaluating();
    const recorded = resumePointOf(text);
    const { tool, rounds } = evaluatedTool([{ report: completeReport() }]);

    const error = await rejection(
      tool.execute(recorded.args, { agent, resume: { runId: recorded.runId, point: recorded.point } }),
    );

    expect(error).toMatchObject({
      code: 'refused',
      message:
        "Ralph cannot resume the run: it stopped while an evaluator was checking round 1's completion: resume it with an evaluator",
    });
    expect(rounds.requests).toEqual([]);
  });
});
