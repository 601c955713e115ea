import { expect, test } from 'vitest';
import type { ChildRequest } from '../../src/contract/types.js';
import type { ChildStarted } from '../../src/machines/ralph.machine.js';
import { loadOrFail } from './load.js';

// The model is walked on the machine itself, so the machine's shape is checked against the design here: the
// coverage figures are over exactly these states and transitions.
const suite = await loadOrFail('the machine', () => import('./model-suite.js'));
const xstate = await loadOrFail('xstate', () => import('xstate'));

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
      'ralph.validating on always #8 → ralph.round',
      'ralph.round on CANCEL #0 → ralph.cancelling',
      'ralph.round on done:startChild #0 → ralph.awaitingReport',
      'ralph.round on error:startChild #0 → ralph.failed',
      'ralph.awaitingReport on CANCEL #0 → ralph.cancelling',
      'ralph.awaitingReport on done:awaitReport #0 → ralph.reviewingReport',
      'ralph.awaitingReport on error:awaitReport #0 → ralph.failed',
      'ralph.reviewingReport on always #0 [reportIsMissing] → ralph.failed',
      'ralph.reviewingReport on always #1 [reportIsMalformed] → ralph.failed',
      'ralph.reviewingReport on always #2 [reportExceedsHandoffCap] → ralph.failed',
      'ralph.reviewingReport on always #3 [reportIsComplete] → ralph.complete',
      'ralph.reviewingReport on always #4 [reportIsBlocked] → ralph.blocked',
      'ralph.reviewingReport on always #5 [roundCapReached] → ralph.budgetLimited',
      'ralph.reviewingReport on always #6 → ralph.round',
      'ralph.cancelling on done:awaitChildStopped #0 → ralph.cancelled',
      'ralph.cancelling on error:awaitChildStopped #0 → ralph.cancelled',
      'ralph.cancelling on after:cancelDeadline #0 → ralph.cancelled',
    ]);
  });

  test('the report is reviewed once, on the way into reviewingReport, which takes no event and invokes nothing', () => {
    const awaiting = ralphMachine.root.states.awaitingReport;
    const reviewing = ralphMachine.root.states.reviewingReport;
    if (awaiting === undefined || reviewing === undefined) throw new Error('a report state is missing');
    const done = [...awaiting.transitions.values()]
      .flat()
      .filter((t) => t.eventType.startsWith('xstate.done'));
    expect(done.map((t) => t.actions.map((a) => (a as { type: string }).type))).toEqual([['reviewReport']]);
    // Eventless only: a run never rests here, so CANCEL (or anything else) cannot arrive while it is here.
    expect([...reviewing.transitions.keys()]).toEqual([]);
    expect(reviewing.invoke).toEqual([]);
    expect(reviewing.after).toEqual([]);
    expect(reviewing.always?.length).toBe(7);
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
