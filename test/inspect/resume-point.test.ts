import { describe, expect, it } from 'vitest';
import { RecordingError, RunSettledError, resumePointOf } from '../../src/index.js';
import { completeReport, continueReport } from '../support/round-reports.js';
import { agent, rejection, scriptedTool } from '../support/tool.js';

/**
 * The lines a host had recorded when round `round`'s child started: what a host killed right then leaves. The
 * child-started event is emitted before the snapshot it leads to is recorded, so the last snapshot is the round's
 * `round` state, its child not yet counted.
 */
async function recordingCutAtRound(round: number) {
  const first = continueReport('round 1 ported the lexer');
  const { tool } = scriptedTool([{ report: first }, { hang: true }]);
  const lines: string[] = [];
  let cut: string[] | undefined;
  const controller = new AbortController();
  const run = tool.execute(
    { objective: 'Port the parser', maxRounds: 4 },
    {
      agent,
      signal: controller.signal,
      record: { write: (line) => lines.push(line) },
      onProgress: (event) => {
        if (event.type === 'child-started' && event.round === round) {
          cut = [...lines];
          controller.abort();
        }
      },
    },
  );
  await rejection(run);
  return { text: (cut as string[]).join(''), all: lines.join(''), first };
}

describe('resumePointOf: where an unsettled run picks up', () => {
  it('reads the rounds finished, the last accepted report and the children started, from the last snapshot', async () => {
    const { text, first } = await recordingCutAtRound(2);
    const resume = resumePointOf(text);
    expect(resume).toMatchObject({
      args: { objective: 'Port the parser', maxRounds: 4 },
      // The scripted agents say nothing of what they used; round 2, going on, is what its spend is unknown of.
      point: { round: 1, handoff: first, agentsStarted: 1, usage: null, uncountedRounds: [2] },
      lastState: 'running.round.starting',
      forcedExit: false,
    });
  });

  it('resumes a recording of the flat machine (before the chart nested its states) as it did', async () => {
    const { text, first } = await recordingCutAtRound(2);
    // The flat machine recorded a round's states by their own names, at the root.
    const flat = text
      .replaceAll('{"running":{"round":"starting"}}', '"round"')
      .replaceAll('{"running":{"round":"awaitingReport"}}', '"awaitingReport"');
    expect(resumePointOf(flat)).toMatchObject({
      point: { round: 1, handoff: first, agentsStarted: 1, usage: null, uncountedRounds: [2] },
      lastState: 'round',
    });
    // Its last snapshot in `cancelling` instead: the round its child was stopped in is run again all the same.
    const at = flat.lastIndexOf('"value":"round"');
    const cancelling = `${flat.slice(0, at)}"value":"cancelling"${flat.slice(at + '"value":"round"'.length)}`;
    expect(resumePointOf(cancelling)).toMatchObject({ point: { round: 1 }, lastState: 'cancelling' });
  });

  it('refuses a recording that rests where no round is going on, naming the state by its path', async () => {
    const { text } = await recordingCutAtRound(2);
    const verifying = text.replaceAll('{"running":{"round":"starting"}}', '{"running":"verifying"}');
    expect(() => resumePointOf(verifying)).toThrow(
      /the run rested in running\.verifying, which is no round boundary/,
    );
  });

  it('drops a last line cut off mid-write, and refuses a settled run', async () => {
    const { text, all } = await recordingCutAtRound(2);
    expect(resumePointOf(`${text}{"type":"@xstate.snaps`).point.round).toBe(1);
    // The whole recording ends with the cancellation: the run settled.
    expect(() => resumePointOf(all)).toThrow(RunSettledError);
    expect(() => resumePointOf(all)).toThrow(/already settled \(cancelled\): there is nothing to resume/);
    expect(() => resumePointOf('')).toThrow(RecordingError);
  });

  it('continues through the tool under the same run id: the next round gets the last report as its handoff', async () => {
    const { text, first } = await recordingCutAtRound(2);
    const recorded = resumePointOf(text);
    const { tool, provider } = scriptedTool([
      { report: continueReport('round 2') },
      { report: completeReport() },
    ]);
    const envelope = await tool.execute(recorded.args, {
      agent,
      resume: { runId: recorded.runId, point: recorded.point },
    });
    expect(envelope).toMatchObject({
      runId: recorded.runId,
      agentsStarted: 3,
      result: { status: 'complete', rounds: 3 },
    });
    expect(provider.requests.map((r) => [r.runId, r.round, r.handoff])).toEqual([
      [recorded.runId, 2, first],
      [recorded.runId, 3, continueReport('round 2')],
    ]);
    expect(provider.requests[0]?.prompt).toContain('round 2 of at most 4');
  });

  it('a resume point the call cannot continue from is refused before any child starts', async () => {
    const { tool, provider } = scriptedTool([{ report: completeReport() }]);
    const error = await rejection(
      tool.execute(
        { objective: 'Port the parser', maxRounds: 2 },
        { agent, resume: { runId: 'r1', point: { round: 2, handoff: continueReport(), agentsStarted: 2 } } },
      ),
    );
    expect(error).toMatchObject({
      code: 'refused',
      message:
        'Ralph cannot resume the run: its finished rounds (2) must be a whole number below the round cap 2',
    });
    expect(provider.requests).toEqual([]);
  });

  it('a resume point whose uncounted rounds are no round numbers up to the one run again is refused', async () => {
    const { tool, provider } = scriptedTool([{ report: completeReport() }]);
    const point = { round: 1, handoff: continueReport(), agentsStarted: 1, uncountedRounds: [3] };
    const error = await rejection(
      tool.execute({ objective: 'Port the parser', maxRounds: 4 }, { agent, resume: { runId: 'r1', point } }),
    );
    expect(error).toMatchObject({
      code: 'refused',
      message:
        'Ralph cannot resume the run: its uncounted rounds (3) must be round numbers up to the round it runs again',
    });
    expect(provider.requests).toEqual([]);
  });
});
