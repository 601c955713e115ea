import { expect, test } from 'vitest';
import type { ChildRequest } from '../../src/contract/types.js';
import type { ChildStarted } from '../../src/machines/ralph.machine.js';
import { loadOrFail } from './load.js';

// The model is walked on the machine itself, so the machine's shape is checked against the design here: the
// coverage figures are over exactly these states and transitions.
const suite = await loadOrFail('the machine', () => import('./model-suite.js'));
const xstate = await loadOrFail('xstate', () => import('xstate'));
const MACHINE_FILE = 'src/machines/ralph.machine.ts';

if (suite !== null && xstate !== null) {
  const { ralphMachine, stateNodeIds, transitionKeys } = suite;

  test("the statechart has the design's states, starting in validating", () => {
    expect(ralphMachine.id).toBe('ralph');
    expect(ralphMachine.root.initial?.target.map((node) => node.id)).toEqual(['ralph.validating']);
    expect(stateNodeIds(ralphMachine)).toEqual([
      'ralph.validating',
      'ralph.round',
      'ralph.awaitingReport',
      'ralph.reviewingReport',
      'ralph.verifying',
      'ralph.fingerprinting',
      'ralph.nextRound',
      'ralph.waitingForLimit',
      'ralph.stoppingRound',
      'ralph.roundStopped',
      'ralph.cancellingVerify',
      'ralph.cancelling',
      'ralph.complete',
      'ralph.blocked',
      'ralph.budgetLimited',
      'ralph.failed',
      'ralph.rejected',
      'ralph.cancelled',
    ]);
    const finals = Object.values(ralphMachine.root.states).filter((node) => node.type === 'final');
    expect(finals.map((node) => node.key)).toEqual([
      'complete',
      'blocked',
      'budgetLimited',
      'failed',
      'rejected',
      'cancelled',
    ]);
  });

  test("the statechart has the design's transitions: named guards, in the order the checks speak", () => {
    expect(transitionKeys(ralphMachine)).toEqual([
      'ralph.validating on always #0 [objectiveIsEmpty] → ralph.rejected',
      'ralph.validating on always #1 [maxRoundsIsInvalid] → ralph.rejected',
      'ralph.validating on always #2 [maxRoundsExceedsDeploymentCeiling] → ralph.rejected',
      'ralph.validating on always #3 [maxRoundsExceedsEngineCeiling] → ralph.rejected',
      'ralph.validating on always #4 [callingAgentIsMissing] → ralph.rejected',
      'ralph.validating on always #5 [providerIsNotRegistered] → ralph.rejected',
      'ralph.validating on always #6 [providerLacksStructuredOutput] → ralph.rejected',
      'ralph.validating on always #7 [providerInheritsParentContext] → ralph.rejected',
      'ralph.validating on always #8 [costBudgetLacksCostReports] → ralph.rejected',
      'ralph.validating on always #9 [resumePointIsInvalid] → ralph.rejected',
      'ralph.validating on always #10 [isResuming] → ralph.round',
      'ralph.validating on always #11 [idleWatchIsOn] → ralph.fingerprinting',
      'ralph.validating on always #12 → ralph.round',
      'ralph.round on CANCEL #0 → ralph.cancelling',
      'ralph.round on done:startChild #0 → ralph.awaitingReport',
      'ralph.round on error:startChild #0 → ralph.failed',
      'ralph.round on after:roundTimeout #0 [roundTimeoutIsSet] → ralph.stoppingRound',
      'ralph.round on always #0 [timeBudgetIsSpent] → ralph.stoppingRound',
      'ralph.awaitingReport on CANCEL #0 → ralph.cancelling',
      'ralph.awaitingReport on done:awaitReport #0 [roundHitLimitAndWaits] → ralph.waitingForLimit',
      'ralph.awaitingReport on done:awaitReport #1 [roundHitLimit] → ralph.failed',
      'ralph.awaitingReport on done:awaitReport #2 → ralph.reviewingReport',
      'ralph.awaitingReport on error:awaitReport #0 → ralph.failed',
      'ralph.awaitingReport on after:roundTimeout #0 [roundTimeoutIsSet] → ralph.stoppingRound',
      'ralph.awaitingReport on always #0 [timeBudgetIsSpent] → ralph.stoppingRound',
      'ralph.reviewingReport on always #0 [reportIsMissing] → ralph.failed',
      'ralph.reviewingReport on always #1 [reportIsMalformed] → ralph.failed',
      'ralph.reviewingReport on always #2 [reportExceedsHandoffCap] → ralph.failed',
      'ralph.reviewingReport on always #3 [completionNeedsVerifying] → ralph.verifying',
      'ralph.reviewingReport on always #4 [reportIsComplete] → ralph.complete',
      'ralph.reviewingReport on always #5 [reportIsBlocked] → ralph.blocked',
      'ralph.reviewingReport on always #6 [roundCapReached] → ralph.budgetLimited',
      'ralph.reviewingReport on always #7 [costBudgetIsSpent] → ralph.budgetLimited',
      'ralph.reviewingReport on always #8 [idleWatchIsOn] → ralph.fingerprinting',
      'ralph.reviewingReport on always #9 → ralph.round',
      'ralph.verifying on CANCEL #0 → ralph.cancellingVerify',
      'ralph.verifying on done:runVerify #0 [verifyPassed] → ralph.complete',
      'ralph.verifying on done:runVerify #1 [roundCapReached] → ralph.budgetLimited',
      'ralph.verifying on done:runVerify #2 [idleWatchIsOn] → ralph.fingerprinting',
      'ralph.verifying on done:runVerify #3 → ralph.nextRound',
      'ralph.verifying on error:runVerify #0 → ralph.failed',
      'ralph.fingerprinting on CANCEL #0 → ralph.cancelled',
      'ralph.fingerprinting on done:fingerprintWorkspace #0 [idleLimitReached] → ralph.budgetLimited',
      'ralph.fingerprinting on done:fingerprintWorkspace #1 [workspaceUnchanged] → ralph.nextRound',
      'ralph.fingerprinting on done:fingerprintWorkspace #2 → ralph.nextRound',
      'ralph.fingerprinting on error:fingerprintWorkspace #0 → ralph.failed',
      'ralph.nextRound on always #0 [timeRanOutBeforeAnyReport] → ralph.failed',
      'ralph.nextRound on always #1 [timeBudgetIsSpent] → ralph.budgetLimited',
      'ralph.nextRound on always #2 [costBudgetIsSpent] → ralph.budgetLimited',
      'ralph.nextRound on always #3 → ralph.round',
      'ralph.waitingForLimit on CANCEL #0 → ralph.cancelled',
      'ralph.waitingForLimit on after:limitWait #0 → ralph.round',
      'ralph.waitingForLimit on always #0 [timeRanOutBeforeAnyReport] → ralph.failed',
      'ralph.waitingForLimit on always #1 [timeBudgetIsSpent] → ralph.budgetLimited',
      'ralph.stoppingRound on done:awaitChildStopped #0 → ralph.roundStopped',
      'ralph.stoppingRound on error:awaitChildStopped #0 → ralph.roundStopped',
      'ralph.stoppingRound on after:cancelDeadline #0 → ralph.roundStopped',
      'ralph.roundStopped on always #0 [stoppedForRoundTimeout] → ralph.failed',
      'ralph.roundStopped on always #1 [timeRanOutBeforeAnyReport] → ralph.failed',
      'ralph.roundStopped on always #2 → ralph.budgetLimited',
      'ralph.cancellingVerify on done:awaitVerifyStopped #0 → ralph.cancelled',
      'ralph.cancellingVerify on error:awaitVerifyStopped #0 → ralph.cancelled',
      'ralph.cancellingVerify on after:cancelDeadline #0 → ralph.cancelled',
      'ralph.cancelling on done:awaitChildStopped #0 → ralph.cancelled',
      'ralph.cancelling on error:awaitChildStopped #0 → ralph.cancelled',
      'ralph.cancelling on after:cancelDeadline #0 → ralph.cancelled',
    ]);
  });

  test('every invoke has a literal id, named after the actor it runs', () => {
    const invokes = Object.values(ralphMachine.root.states).flatMap((node) =>
      node.invoke.map((invoke) => ({ state: node.key, id: invoke.id, src: invoke.src })),
    );
    expect(invokes).toEqual([
      { state: 'round', id: 'startChild', src: 'startChild' },
      { state: 'awaitingReport', id: 'awaitReport', src: 'awaitReport' },
      { state: 'verifying', id: 'runVerify', src: 'runVerify' },
      { state: 'fingerprinting', id: 'fingerprintWorkspace', src: 'fingerprintWorkspace' },
      { state: 'stoppingRound', id: 'awaitChildStopped', src: 'awaitChildStopped' },
      { state: 'cancellingVerify', id: 'awaitVerifyStopped', src: 'awaitVerifyStopped' },
      { state: 'cancelling', id: 'awaitChildStopped', src: 'awaitChildStopped' },
    ]);
    // Written in the config, not generated by XState (which would make them `0.ralph.round` and the like).
    for (const { state, id } of invokes)
      expect(ralphMachine.config.states?.[state]?.invoke, `the invoke of ${state}`).toMatchObject({ id });
  });

  test('the events a run takes are named after those ids, and the deadline after its delay and state', () => {
    const events = Object.fromEntries(
      Object.values(ralphMachine.root.states).map((node) => [node.key, [...node.transitions.keys()]]),
    );
    expect(events).toEqual({
      validating: [],
      round: [
        'CANCEL',
        'xstate.done.actor.startChild',
        'xstate.error.actor.startChild',
        'xstate.after.roundTimeout.ralph.round',
      ],
      awaitingReport: [
        'CANCEL',
        'xstate.done.actor.awaitReport',
        'xstate.error.actor.awaitReport',
        'xstate.after.roundTimeout.ralph.awaitingReport',
      ],
      reviewingReport: [],
      verifying: ['CANCEL', 'xstate.done.actor.runVerify', 'xstate.error.actor.runVerify'],
      fingerprinting: [
        'CANCEL',
        'xstate.done.actor.fingerprintWorkspace',
        'xstate.error.actor.fingerprintWorkspace',
      ],
      nextRound: [],
      waitingForLimit: ['CANCEL', 'xstate.after.limitWait.ralph.waitingForLimit'],
      stoppingRound: [
        'xstate.done.actor.awaitChildStopped',
        'xstate.error.actor.awaitChildStopped',
        'xstate.after.cancelDeadline.ralph.stoppingRound',
      ],
      roundStopped: [],
      cancellingVerify: [
        'xstate.done.actor.awaitVerifyStopped',
        'xstate.error.actor.awaitVerifyStopped',
        'xstate.after.cancelDeadline.ralph.cancellingVerify',
      ],
      cancelling: [
        'xstate.done.actor.awaitChildStopped',
        'xstate.error.actor.awaitChildStopped',
        'xstate.after.cancelDeadline.ralph.cancelling',
      ],
      complete: [],
      blocked: [],
      budgetLimited: [],
      failed: [],
      rejected: [],
      cancelled: [],
    });
    // The wall clock is the root's own: it runs from the start of the run to its end, whatever the state.
    expect([...ralphMachine.root.transitions.keys()]).toEqual(['xstate.after.wallClock.ralph']);
    expect(suite.rootTransitionKeys(ralphMachine)).toEqual([
      'ralph on after:wallClock #0 [wallClockIsRunning] → (no target)',
    ]);
    // The model offers exactly the events the machine takes: no event of the model is named by another rule.
    expect(Object.values(suite.EVENT).sort()).toEqual(
      [...new Set([...Object.values(events).flat(), 'xstate.after.wallClock.ralph'])].sort(),
    );
  });

  test('the machine and every state say why they exist, in a description', () => {
    const nodes = [ralphMachine.root, ...Object.values(ralphMachine.root.states)];
    for (const node of nodes) {
      expect(node.description, `the description of ${node.id}`).toMatch(/^[A-Z].{19,}\.$/s);
    }
  });

  test('the tags say what a host may rely on in each state', () => {
    const tags = Object.fromEntries(
      Object.values(ralphMachine.root.states).map((node) => [node.key, [...node.tags].sort()]),
    );
    expect(tags).toEqual({
      validating: [],
      round: ['childRunning'],
      awaitingReport: ['childRunning'],
      reviewingReport: [],
      verifying: [],
      fingerprinting: [],
      nextRound: [],
      waitingForLimit: [],
      stoppingRound: ['childRunning'],
      roundStopped: [],
      cancellingVerify: [],
      cancelling: ['childRunning'],
      complete: ['settled', 'succeeded'],
      blocked: ['settled', 'succeeded'],
      budgetLimited: ['settled', 'succeeded'],
      failed: ['failure', 'settled'],
      rejected: ['failure', 'settled'],
      cancelled: ['failure', 'settled'],
    });
    for (const node of Object.values(ralphMachine.root.states))
      expect(node.tags.includes('settled'), `${node.key} is settled exactly when it is final`).toBe(
        node.type === 'final',
      );
  });

  test("the machine's source is what Stately's import reads: one inline config of literals", () => {
    const problems = suite.statelyImportProblems(suite.machineSource(MACHINE_FILE));
    expect(problems).toEqual([]);
  });

  test('the machine file is the chart: a config that reads in minutes, its implementations and types beside it', () => {
    const source = suite.machineSource(MACHINE_FILE);
    expect(source.split('\n').length, 'lines of src/machines/ralph.machine.ts').toBeLessThanOrEqual(500);
    // Guards, actions, actors and delays are named in ralph.setup.ts; nothing in the chart file implements one.
    expect(source).not.toMatch(/\b(setup|assign|emit|enqueueActions|fromPromise)\(/);
    // What it exports of its own is the machine and its type; the data types are re-exported from their files.
    const own = [...source.matchAll(/^export (?:const|type|function|interface) (\w+)/gm)].map((m) => m[1]);
    expect(own).toEqual(['ralphMachine', 'RalphMachine']);
  });

  test('the import check finds what Stately could not read', () => {
    const source = [
      'const m = setup({}).createMachine({',
      '  ...base,',
      '  initial: first,',
      '  states: {',
      "    [key]: { description: `why`, tags: ['a', tag] },",
      "    b: { invoke: { id: ID, src: 'b', input: ({ context }) => ({ ...context }) }, on: { GO: { target } } },",
      '  },',
      '});',
    ].join('\n');
    expect(suite.statelyImportProblems(source)).toEqual([
      'line 2: a spread',
      'line 3: "initial" is not a string literal',
      'line 5: a computed key',
      'line 5: "description" is not a string literal',
      'line 5: a tag that is not a string literal',
      'line 6: "id" is not a string literal',
      'line 6: a shorthand key',
    ]);
    expect(suite.statelyImportProblems('const config = {}; createMachine(config);')).toEqual([
      'the createMachine call is not given an inline config object',
    ]);
  });

  test('the report is reviewed once, after its usage is recorded, on the way into reviewingReport, which takes no event and invokes nothing', () => {
    const awaiting = ralphMachine.root.states.awaitingReport;
    const reviewing = ralphMachine.root.states.reviewingReport;
    if (awaiting === undefined || reviewing === undefined) throw new Error('a report state is missing');
    const done = [...awaiting.transitions.values()]
      .flat()
      .filter((t) => t.eventType.startsWith('xstate.done'));
    // What the round used is recorded first, so that the decision that follows can weigh it (the cost budget); a
    // round that hit a usage limit has no report to review.
    expect(done.map((t) => t.actions.map((a) => (a as { type: string }).type))).toEqual([
      ['recordUsage', 'recordLimitWait', 'announceLimitWait'],
      ['recordUsage', 'failUsageLimit'],
      ['recordUsage', 'reviewReport'],
    ]);
    // Eventless only: a run never rests here, so CANCEL (or anything else) cannot arrive while it is here.
    expect([...reviewing.transitions.keys()]).toEqual([]);
    expect(reviewing.invoke).toEqual([]);
    expect(reviewing.after).toEqual([]);
    expect(reviewing.always?.length).toBe(10);
  });

  test('a host that runs the machine without its actors gets a workflow failure that says what is missing', async () => {
    const { ACCEPTED_CALLS, machineInputFor, declaredProvider } = suite;
    const call = ACCEPTED_CALLS[0];
    if (call === undefined) throw new Error('no accepted call to run');
    const actor = xstate.createActor(ralphMachine, { input: machineInputFor(call, declaredProvider(call)) });
    actor.start();
    const output = await xstate.toPromise(actor);
    expect(actor.getSnapshot().value).toBe('failed');
    expect(output).toEqual({
      ok: false,
      failure: {
        code: 'workflow-failed',
        message:
          'Ralph workflow failed: subagent provider "mock-agent" failed to start round 1: ralphMachine actor ' +
          '"startChild" was not provided; run the machine through createRalphEngine',
        round: 1,
        lastHandoff: null,
        detail: 'ralphMachine actor "startChild" was not provided; run the machine through createRalphEngine',
      },
    });
  });

  test('a host that provides only startChild gets a child failure that names the missing awaitReport', async () => {
    const { ACCEPTED_CALLS, machineInputFor, declaredProvider } = suite;
    const call = ACCEPTED_CALLS[0];
    if (call === undefined) throw new Error('no accepted call to run');
    const startChild = xstate.fromPromise<ChildStarted, ChildRequest>(async () => ({ childId: 'child-1' }));
    const actor = xstate.createActor(ralphMachine.provide({ actors: { startChild } }), {
      input: machineInputFor(call, declaredProvider(call)),
    });
    actor.start();
    const output = await xstate.toPromise(actor);
    expect(output).toMatchObject({
      ok: false,
      failure: {
        code: 'child-failed',
        detail:
          'ralphMachine actor "awaitReport" was not provided; run the machine through createRalphEngine',
      },
    });
  });
}
