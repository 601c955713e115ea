import type { RalphFailure } from '../../src/contract/errors.js';
import { childFailureMessage } from '../../src/contract/messages.js';
import type { RalphReport, RalphResultStatus } from '../../src/contract/types.js';
import type { RunModel, RunModelRound } from '../../src/inspect/run-model.js';

// Hand-built run models, shaped as the recording's builder makes them, for the report page and the live inspector
// to render before (and independently of) the builder itself.

const RUN_ID = 'V1StGXR8_Z5jdHi6B-myT';
const ROUND_MS = 1_250;
const CHECKLIST_OBJECTIVE =
  'Work through TASKS.md in this workspace: do each unchecked task, tick it off, and report complete when every task is checked.';

const base = (objective: string | null, maxRounds: number | null): RunModel => ({
  recording: { formatVersion: 1, packageVersion: '0.1.0', machineHash: 'sha256-3f9a1c0de7b24e55' },
  startedAt: '2025-05-04T09:30:00.000Z',
  runId: RUN_ID,
  objective,
  maxRounds,
  agentsStarted: 0,
  path: [{ state: 'validating', at: 0 }],
  rounds: [],
  usage: null,
  ending: null,
});

const continueReport = (round: number): RalphReport => ({
  status: 'continue',
  summary: `Round ${round}: did task ${round}, its check passed, so it is ticked.`,
  evidence: [`task ${round}: check passed (exit 0)`],
  nextSteps: [`Do task ${round + 1}`],
  blocker: null,
});

/** Appends one round (round → awaitingReport, and reviewingReport once it reported) to the model. */
function addRound(model: RunModel, report: RalphReport | null, outcome: RunModelRound['outcome']): void {
  const round = model.rounds.length + 1;
  const startedAt = 5 + (round - 1) * ROUND_MS;
  const endedAt = outcome === 'running' ? null : startedAt + ROUND_MS - 10;
  model.path.push({ state: 'round', at: startedAt }, { state: 'awaitingReport', at: startedAt + 40 });
  if (report !== null) model.path.push({ state: 'reviewingReport', at: endedAt ?? startedAt });
  model.agentsStarted = round;
  model.rounds.push({
    round,
    childId: `${RUN_ID}-r${round}-pid${4000 + round}`,
    startedAt,
    endedAt,
    report,
    usage: null,
    outcome,
  });
}

/** Ends the model in `finalState` with the envelope of a settled run. */
function settle(model: RunModel, finalState: string, status: RalphResultStatus): RunModel {
  const last = model.rounds.at(-1);
  if (last?.report == null) throw new Error('a settled run has a last report');
  const at = (last.endedAt ?? 0) + 3;
  model.path.push({ state: finalState, at });
  model.ending = {
    finalState,
    at,
    result: {
      ok: true,
      envelope: {
        runId: RUN_ID,
        agentsStarted: model.agentsStarted,
        result: { status, rounds: model.rounds.length, report: last.report },
      },
    },
  };
  return model;
}

/** Ends the model in `finalState` with a failure. */
function fail(model: RunModel, finalState: string, failure: RalphFailure): RunModel {
  const at = (model.rounds.at(-1)?.endedAt ?? 1) + 3;
  model.path.push({ state: finalState, at });
  model.ending = { finalState, at, result: { ok: false, failure } };
  return model;
}

/** A run that completed in `rounds` rounds (continue, …, complete). */
export function completeRun(rounds = 1, objective = 'Make every test in ./test pass'): RunModel {
  const model = base(objective, 10);
  for (let round = 1; round < rounds; round++) addRound(model, continueReport(round), 'continue');
  addRound(
    model,
    {
      status: 'complete',
      summary: `Round ${rounds}: every test passes.`,
      evidence: ['npm test: 42 passed'],
      nextSteps: [],
      blocker: null,
    },
    'complete',
  );
  return settle(model, 'complete', 'complete');
}

/** The demo loop: the checklist agent ticks three tasks in three rounds. */
export function demoRun(): RunModel {
  const model = base(CHECKLIST_OBJECTIVE, 256);
  const tasks = [
    'task 1 (create hello.txt), wrote 32 bytes to hello.txt',
    'task 2 (create notes/plan.md), wrote 70 bytes to notes/plan.md',
    'task 3 (run `node tools/summarize.mjs hello.txt notes/plan.md`), ran it (exit 0: 2 files, 6 lines)',
  ];
  tasks.forEach((task, index) => {
    const round = index + 1;
    const last = round === tasks.length;
    const summary = `Round ${round}: did ${task}; its check passed, so it is ticked.${last ? ' No task is left.' : ''}`;
    addRound(
      model,
      {
        status: last ? 'complete' : 'continue',
        summary,
        evidence: [`task ${round}: check passed (exit 0)`],
        nextSteps: last ? [] : [`Do task ${round + 1}`],
        blocker: null,
      },
      last ? 'complete' : 'continue',
    );
  });
  return settle(model, 'complete', 'complete');
}

/** A run that used every one of its `rounds` rounds with work remaining. */
export function budgetLimitedRun(rounds = 256): RunModel {
  const model = base('Port the whole parser to TypeScript, one module a round', rounds);
  for (let round = 1; round < rounds; round++) addRound(model, continueReport(round), 'continue');
  addRound(model, continueReport(rounds), 'budget-limited');
  return settle(model, 'budgetLimited', 'budget-limited');
}

/** A run whose round 2 child failed before reporting; round 1's report is the last handoff. */
export function failedRun(): RunModel {
  const model = base('Fix the flaky build', 5);
  addRound(model, continueReport(1), 'continue');
  addRound(model, null, 'failed');
  return fail(model, 'failed', {
    code: 'child-failed',
    message: childFailureMessage(2, continueReport(1)),
    round: 2,
    lastHandoff: continueReport(1),
    detail: 'the agent exited with code 3: round 2 crashed on purpose',
  });
}

/** A call refused in validating: nothing started. */
export function refusedRun(): RunModel {
  const model = base('', null);
  return fail(model, 'rejected', { code: 'refused', message: 'Ralph objective must be a non-empty string' });
}

/** A run cancelled (Ctrl-C) while its second round ran. */
export function cancelledRun(): RunModel {
  const model = base('Tick every box in CHECKLIST.md', 5);
  addRound(model, continueReport(1), 'continue');
  addRound(model, null, 'cancelled');
  model.path.push({ state: 'cancelling', at: 2_400 });
  return fail(model, 'cancelled', { code: 'cancelled', message: 'Ralph workflow was cancelled' });
}

/** A run still going: `rounds` rounds reported continue and one more is running. */
export function runningRun(rounds = 1): RunModel {
  const model = base('Tick every box in CHECKLIST.md', 5);
  for (let round = 1; round <= rounds; round++) addRound(model, continueReport(round), 'continue');
  addRound(model, null, 'running');
  return model;
}

/** A run whose objective and first report carry markup and script, as an untrusted agent could write them. */
export function hostileRun(): RunModel {
  const model = completeRun(1, '<img src=x onerror="window.__pwned=1">objective</script>');
  const round = model.rounds[0]!;
  const report: RalphReport = {
    status: 'complete',
    summary: '<script>window.__pwned=1</script>',
    evidence: ['<b onmouseover="window.__pwned=1">bold</b>', '</script><script>window.__pwned=1</script>'],
    nextSteps: [],
    blocker: null,
  };
  round.report = report;
  if (model.ending?.result.ok) model.ending.result.envelope.result.report = report;
  return model;
}
