import { expect, test } from 'vitest';
import { loadOrFail } from './load.js';

// The model is walked on the machine itself, so the machine's shape is checked against the design here: the
// coverage figures are over exactly these states and transitions.
const suite = await loadOrFail('the machine', () => import('./model-suite.js'));
const xstate = await loadOrFail('xstate', () => import('xstate'));
const MACHINE_FILE = 'src/machines/ralph.machine.ts';

if (suite !== null && xstate !== null) {
  const { ralphMachine, stateNodeIds, transitionKeys } = suite;

  /** Every state node of the chart, nested ones included, by its id relative to the root (`running.round`). */
  const nodes = () =>
    suite.stateNodesOf(ralphMachine).map((node) => ({ node, path: node.id.replace(/^ralph\./, '') }));

  test("the statechart has the design's states, nested where they share behaviour, starting in validating", () => {
    expect(ralphMachine.id).toBe('ralph');
    expect(ralphMachine.root.initial?.target.map((node) => node.id)).toEqual(['ralph.validating']);
    expect(stateNodeIds(ralphMachine)).toEqual([
      'ralph.validating',
      'ralph.running',
      'ralph.running.round',
      'ralph.running.round.starting',
      'ralph.running.round.awaitingReport',
      'ralph.running.reviewingReport',
      'ralph.running.reviewingReport.checking',
      'ralph.running.reviewingReport.accepted',
      'ralph.running.verifying',
      'ralph.running.evaluating',
      'ralph.running.evaluating.starting',
      'ralph.running.evaluating.awaitingVerdict',
      'ralph.running.reviewingVerdict',
      'ralph.running.reviewingVerdict.checking',
      'ralph.running.reviewingVerdict.decided',
      'ralph.running.fingerprinting',
      'ralph.running.nextRound',
      'ralph.running.waitingForLimit',
      'ralph.running.awaitingAnswer',
      'ralph.stoppingRound',
      'ralph.roundStopped',
      'ralph.stoppingEvaluator',
      'ralph.evaluatorStopped',
      'ralph.cancelling',
      'ralph.cancelling.child',
      'ralph.cancelling.evaluator',
      'ralph.cancelling.verifyCommand',
      'ralph.complete',
      'ralph.blocked',
      'ralph.budgetLimited',
      'ralph.failed',
      'ralph.rejected',
      'ralph.cancelled',
    ]);
    // The endings are the root's own: a run's outcome never depends on how deep the state it ended from was.
    const finals = nodes().filter(({ node }) => node.type === 'final');
    expect(finals.map(({ path }) => path)).toEqual([
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
      // The evaluator's checks come after the provider's and the cost budget's, and before the resume point's.
      'ralph.validating on always #9 [evaluatorIsNotRegistered] → ralph.rejected',
      'ralph.validating on always #10 [evaluatorLacksStructuredOutput] → ralph.rejected',
      'ralph.validating on always #11 [evaluatorInheritsParentContext] → ralph.rejected',
      'ralph.validating on always #12 [evaluatorLacksCostReports] → ralph.rejected',
      // A sandboxed run's checks: its provider and its evaluator must start children ralph can sandbox.
      'ralph.validating on always #13 [providerCannotSandbox] → ralph.rejected',
      'ralph.validating on always #14 [evaluatorCannotSandbox] → ralph.rejected',
      'ralph.validating on always #15 [resumePointIsInvalid] → ralph.rejected',
      // A run that stopped while its evaluator checked a completion picks up by evaluating it again.
      'ralph.validating on always #16 [isResumingEvaluation] → ralph.running.evaluating',
      // A run that stopped while a blocked round's question waited for an answer picks up by waiting again.
      'ralph.validating on always #17 [isResumingQuestion] → ralph.running.awaitingAnswer',
      'ralph.validating on always #18 [isResuming] → ralph.running.round',
      'ralph.validating on always #19 [idleWatchIsOn] → ralph.running.fingerprinting',
      'ralph.validating on always #20 → ralph.running.round',
      // CANCEL is written once for the run, and again only where something runs that must stop first.
      'ralph.running on CANCEL #0 → ralph.cancelled',
      // One round timer, and one check of the time limit, for the whole round: its start and its report.
      'ralph.running.round on CANCEL #0 → ralph.cancelling.child',
      // One actor a round: its report or its failure, wherever in the round it comes; a failure before it told
      // CHILD_STARTED is the provider's.
      'ralph.running.round on done:runRound #0 [roundHitLimitAndWaits] → ralph.running.waitingForLimit',
      'ralph.running.round on done:runRound #1 [roundHitLimit] → ralph.failed',
      'ralph.running.round on done:runRound #2 → ralph.running.reviewingReport',
      'ralph.running.round on error:runRound #0 [childIsStarting] → ralph.failed',
      'ralph.running.round on error:runRound #1 → ralph.failed',
      'ralph.running.round on after:roundTimeout #0 [roundTimeoutIsSet] → ralph.stoppingRound',
      'ralph.running.round on always #0 [timeBudgetIsSpent] → ralph.stoppingRound',
      'ralph.running.round.starting on CHILD_STARTED #0 → ralph.running.round.awaitingReport',
      // The decision after a report: refused or accepted (once), then what an accepted report leads to.
      'ralph.running.reviewingReport.checking on always #0 [reportIsMissing] → ralph.failed',
      'ralph.running.reviewingReport.checking on always #1 [reportIsMalformed] → ralph.failed',
      'ralph.running.reviewingReport.checking on always #2 [reportExceedsHandoffCap] → ralph.failed',
      'ralph.running.reviewingReport.checking on always #3 → ralph.running.reviewingReport.accepted',
      'ralph.running.reviewingReport.accepted on always #0 [completionNeedsVerifying] → ralph.running.verifying',
      'ralph.running.reviewingReport.accepted on always #1 [completionNeedsEvaluating] → ralph.running.evaluating',
      'ralph.running.reviewingReport.accepted on always #2 [reportIsComplete] → ralph.complete',
      // With --ask a blocked report within the round cap and the budgets waits for an answer; else it ends the run.
      'ralph.running.reviewingReport.accepted on always #3 [blockedWaitsForAnswer] → ralph.running.awaitingAnswer',
      'ralph.running.reviewingReport.accepted on always #4 [reportIsBlocked] → ralph.blocked',
      'ralph.running.reviewingReport.accepted on always #5 [roundCapReached] → ralph.budgetLimited',
      'ralph.running.reviewingReport.accepted on always #6 [costBudgetIsSpent] → ralph.budgetLimited',
      'ralph.running.reviewingReport.accepted on always #7 [idleWatchIsOn] → ralph.running.fingerprinting',
      'ralph.running.reviewingReport.accepted on always #8 → ralph.running.round',
      'ralph.running.verifying on CANCEL #0 → ralph.cancelling.verifyCommand',
      // A passed command confirms a completion only where no evaluator is to check it next.
      'ralph.running.verifying on done:runVerify #0 [verifyPassedAndNeedsEvaluating] → ralph.running.evaluating',
      'ralph.running.verifying on done:runVerify #1 [verifyPassed] → ralph.complete',
      'ralph.running.verifying on done:runVerify #2 [roundCapReached] → ralph.budgetLimited',
      'ralph.running.verifying on done:runVerify #3 [idleWatchIsOn] → ralph.running.fingerprinting',
      'ralph.running.verifying on done:runVerify #4 → ralph.running.nextRound',
      'ralph.running.verifying on error:runVerify #0 → ralph.failed',
      // The evaluation is stopped like a round: CANCEL, its own round timer and the time limit, on the box.
      'ralph.running.evaluating on CANCEL #0 → ralph.cancelling.evaluator',
      'ralph.running.evaluating on after:roundTimeout #0 [roundTimeoutIsSet] → ralph.stoppingEvaluator',
      'ralph.running.evaluating on always #0 [timeBudgetIsSpent] → ralph.stoppingEvaluator',
      'ralph.running.evaluating.starting on done:startEvaluator #0 → ralph.running.evaluating.awaitingVerdict',
      'ralph.running.evaluating.starting on error:startEvaluator #0 → ralph.failed',
      'ralph.running.evaluating.awaitingVerdict on done:awaitVerdict #0 → ralph.running.reviewingVerdict',
      'ralph.running.evaluating.awaitingVerdict on error:awaitVerdict #0 → ralph.failed',
      // The decision after a verdict: refused (a changed workspace first), or recorded once, then what follows it.
      'ralph.running.reviewingVerdict.checking on always #0 [evaluatorChangedWorkspace] → ralph.failed',
      'ralph.running.reviewingVerdict.checking on always #1 [verdictIsMissing] → ralph.failed',
      'ralph.running.reviewingVerdict.checking on always #2 [verdictIsMalformed] → ralph.failed',
      'ralph.running.reviewingVerdict.checking on always #3 [verdictExceedsHandoffCap] → ralph.failed',
      'ralph.running.reviewingVerdict.checking on always #4 → ralph.running.reviewingVerdict.decided',
      'ralph.running.reviewingVerdict.decided on always #0 [verdictIsAccept] → ralph.complete',
      'ralph.running.reviewingVerdict.decided on always #1 [roundCapReached] → ralph.budgetLimited',
      'ralph.running.reviewingVerdict.decided on always #2 [idleWatchIsOn] → ralph.running.fingerprinting',
      'ralph.running.reviewingVerdict.decided on always #3 → ralph.running.nextRound',
      'ralph.running.fingerprinting on done:fingerprintWorkspace #0 [idleLimitReached] → ralph.budgetLimited',
      'ralph.running.fingerprinting on done:fingerprintWorkspace #1 [workspaceUnchanged] → ralph.running.nextRound',
      'ralph.running.fingerprinting on done:fingerprintWorkspace #2 → ralph.running.nextRound',
      'ralph.running.fingerprinting on error:fingerprintWorkspace #0 → ralph.failed',
      'ralph.running.nextRound on always #0 [timeRanOutBeforeAnyReport] → ralph.failed',
      'ralph.running.nextRound on always #1 [timeBudgetIsSpent] → ralph.budgetLimited',
      'ralph.running.nextRound on always #2 [costBudgetIsSpent] → ralph.budgetLimited',
      'ralph.running.nextRound on always #3 → ralph.running.round',
      'ralph.running.waitingForLimit on after:limitWait #0 → ralph.running.round',
      'ralph.running.waitingForLimit on always #0 [timeRanOutBeforeAnyReport] → ralph.failed',
      'ralph.running.waitingForLimit on always #1 [timeBudgetIsSpent] → ralph.budgetLimited',
      // An answer starts the next round through the gate; anything else ends the run blocked, saying why.
      'ralph.running.awaitingAnswer on done:awaitAnswer #0 [personAnswered] → ralph.running.nextRound',
      'ralph.running.awaitingAnswer on done:awaitAnswer #1 → ralph.blocked',
      'ralph.running.awaitingAnswer on error:awaitAnswer #0 → ralph.blocked',
      'ralph.running.awaitingAnswer on after:answerWait #0 → ralph.blocked',
      'ralph.running.awaitingAnswer on always #0 [timeBudgetIsSpent] → ralph.blocked',
      'ralph.stoppingRound on done:awaitChildStopped #0 → ralph.roundStopped',
      'ralph.stoppingRound on error:awaitChildStopped #0 → ralph.roundStopped',
      'ralph.stoppingRound on after:cancelDeadline #0 → ralph.roundStopped',
      'ralph.roundStopped on always #0 [stoppedForRoundTimeout] → ralph.failed',
      'ralph.roundStopped on always #1 [timeRanOutBeforeAnyReport] → ralph.failed',
      'ralph.roundStopped on always #2 → ralph.budgetLimited',
      'ralph.stoppingEvaluator on done:awaitEvaluatorStopped #0 → ralph.evaluatorStopped',
      'ralph.stoppingEvaluator on error:awaitEvaluatorStopped #0 → ralph.evaluatorStopped',
      'ralph.stoppingEvaluator on after:cancelDeadline #0 → ralph.evaluatorStopped',
      'ralph.evaluatorStopped on always #0 [stoppedForRoundTimeout] → ralph.failed',
      'ralph.evaluatorStopped on always #1 → ralph.budgetLimited',
      // One cancelling state and one deadline, whatever it waits for.
      'ralph.cancelling on after:cancelDeadline #0 → ralph.cancelled',
      'ralph.cancelling.child on done:awaitChildStopped #0 → ralph.cancelled',
      'ralph.cancelling.child on error:awaitChildStopped #0 → ralph.cancelled',
      'ralph.cancelling.evaluator on done:awaitEvaluatorStopped #0 → ralph.cancelled',
      'ralph.cancelling.evaluator on error:awaitEvaluatorStopped #0 → ralph.cancelled',
      'ralph.cancelling.verifyCommand on done:awaitVerifyStopped #0 → ralph.cancelled',
      'ralph.cancelling.verifyCommand on error:awaitVerifyStopped #0 → ralph.cancelled',
    ]);
  });

  test('every invoke has a literal id, named after the actor it runs', () => {
    const invokes = nodes().flatMap(({ node, path }) =>
      node.invoke.map((invoke) => ({ state: path, id: invoke.id, src: invoke.src })),
    );
    expect(invokes).toEqual([
      { state: 'running.round', id: 'runRound', src: 'runRound' },
      { state: 'running.verifying', id: 'runVerify', src: 'runVerify' },
      { state: 'running.evaluating.starting', id: 'startEvaluator', src: 'startEvaluator' },
      { state: 'running.evaluating.awaitingVerdict', id: 'awaitVerdict', src: 'awaitVerdict' },
      { state: 'running.fingerprinting', id: 'fingerprintWorkspace', src: 'fingerprintWorkspace' },
      { state: 'running.awaitingAnswer', id: 'awaitAnswer', src: 'awaitAnswer' },
      { state: 'stoppingRound', id: 'awaitChildStopped', src: 'awaitChildStopped' },
      { state: 'stoppingEvaluator', id: 'awaitEvaluatorStopped', src: 'awaitEvaluatorStopped' },
      { state: 'cancelling.child', id: 'awaitChildStopped', src: 'awaitChildStopped' },
      { state: 'cancelling.evaluator', id: 'awaitEvaluatorStopped', src: 'awaitEvaluatorStopped' },
      { state: 'cancelling.verifyCommand', id: 'awaitVerifyStopped', src: 'awaitVerifyStopped' },
    ]);
    // Written in the config, not generated by XState (which would make them `0.ralph.round` and the like).
    for (const { state, id } of invokes) {
      const config = state
        .split('.')
        .reduce<unknown>(
          (node, key) => (node as { states?: Record<string, unknown> })?.states?.[key],
          ralphMachine.config,
        );
      expect((config as { invoke?: unknown })?.invoke, `the invoke of ${state}`).toMatchObject({ id });
    }
  });

  test('the events a run takes are named after those ids, and the timers after their delay and state', () => {
    const events = Object.fromEntries(nodes().map(({ node, path }) => [path, [...node.transitions.keys()]]));
    expect(events).toEqual({
      validating: [],
      running: ['CANCEL'],
      'running.round': [
        'CANCEL',
        'xstate.done.actor.runRound',
        'xstate.error.actor.runRound',
        'xstate.after.roundTimeout.ralph.running.round',
      ],
      'running.round.starting': ['CHILD_STARTED'],
      'running.round.awaitingReport': [],
      'running.reviewingReport': [],
      'running.reviewingReport.checking': [],
      'running.reviewingReport.accepted': [],
      'running.verifying': ['CANCEL', 'xstate.done.actor.runVerify', 'xstate.error.actor.runVerify'],
      'running.evaluating': ['CANCEL', 'xstate.after.roundTimeout.ralph.running.evaluating'],
      'running.evaluating.starting': [
        'xstate.done.actor.startEvaluator',
        'xstate.error.actor.startEvaluator',
      ],
      'running.evaluating.awaitingVerdict': [
        'xstate.done.actor.awaitVerdict',
        'xstate.error.actor.awaitVerdict',
      ],
      'running.reviewingVerdict': [],
      'running.reviewingVerdict.checking': [],
      'running.reviewingVerdict.decided': [],
      'running.fingerprinting': [
        'xstate.done.actor.fingerprintWorkspace',
        'xstate.error.actor.fingerprintWorkspace',
      ],
      'running.nextRound': [],
      'running.waitingForLimit': ['xstate.after.limitWait.ralph.running.waitingForLimit'],
      'running.awaitingAnswer': [
        'xstate.done.actor.awaitAnswer',
        'xstate.error.actor.awaitAnswer',
        'xstate.after.answerWait.ralph.running.awaitingAnswer',
      ],
      stoppingRound: [
        'xstate.done.actor.awaitChildStopped',
        'xstate.error.actor.awaitChildStopped',
        'xstate.after.cancelDeadline.ralph.stoppingRound',
      ],
      roundStopped: [],
      stoppingEvaluator: [
        'xstate.done.actor.awaitEvaluatorStopped',
        'xstate.error.actor.awaitEvaluatorStopped',
        'xstate.after.cancelDeadline.ralph.stoppingEvaluator',
      ],
      evaluatorStopped: [],
      cancelling: ['xstate.after.cancelDeadline.ralph.cancelling'],
      'cancelling.child': ['xstate.done.actor.awaitChildStopped', 'xstate.error.actor.awaitChildStopped'],
      'cancelling.evaluator': [
        'xstate.done.actor.awaitEvaluatorStopped',
        'xstate.error.actor.awaitEvaluatorStopped',
      ],
      'cancelling.verifyCommand': [
        'xstate.done.actor.awaitVerifyStopped',
        'xstate.error.actor.awaitVerifyStopped',
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
    for (const node of [ralphMachine.root, ...nodes().map(({ node }) => node)]) {
      expect(node.description, `the description of ${node.id}`).toMatch(/^[A-Z].{19,}\.$/s);
    }
  });

  test('the tags say what a host may rely on in each state', () => {
    // A state's tags are those of every state it is in: a parent's tag holds in each of its substates.
    const tags = Object.fromEntries(nodes().map(({ node, path }) => [path, [...node.tags].sort()]));
    expect(tags).toEqual({
      validating: [],
      running: [],
      'running.round': ['childRunning'],
      'running.round.starting': [],
      'running.round.awaitingReport': [],
      'running.reviewingReport': [],
      'running.reviewingReport.checking': [],
      'running.reviewingReport.accepted': [],
      'running.verifying': [],
      // An evaluator is a child like a round's: the run must be cancelled, not dropped, while one may run.
      'running.evaluating': ['childRunning'],
      'running.evaluating.starting': [],
      'running.evaluating.awaitingVerdict': [],
      'running.reviewingVerdict': [],
      'running.reviewingVerdict.checking': [],
      'running.reviewingVerdict.decided': [],
      'running.fingerprinting': [],
      'running.nextRound': [],
      'running.waitingForLimit': [],
      // No child runs while a question waits: a host may drop the run's process (its resume point waits again).
      'running.awaitingAnswer': [],
      stoppingRound: ['childRunning'],
      roundStopped: [],
      stoppingEvaluator: ['childRunning'],
      evaluatorStopped: [],
      cancelling: [],
      'cancelling.child': ['childRunning'],
      'cancelling.evaluator': ['childRunning'],
      'cancelling.verifyCommand': [],
      complete: ['settled', 'succeeded'],
      blocked: ['settled', 'succeeded'],
      budgetLimited: ['settled', 'succeeded'],
      failed: ['failure', 'settled'],
      rejected: ['failure', 'settled'],
      cancelled: ['failure', 'settled'],
    });
    for (const { node, path } of nodes())
      expect(node.tags.includes('settled'), `${path} is settled exactly when it is final`).toBe(
        node.type === 'final',
      );
  });

  test("the machine's source is what Stately's import reads: one inline config of literals", () => {
    const problems = suite.statelyImportProblems(suite.machineSource(MACHINE_FILE));
    expect(problems).toEqual([]);
  });

  test('the machine file is the chart: a config that reads in minutes, its implementations and types beside it', () => {
    const source = suite.machineSource(MACHINE_FILE);
    // 500 until issue 31: the evaluator's states and checks took the chart to 652 lines, the file's long doc comment
    // (≈ 80 lines) included. Raised knowingly, not to fit: moving that comment to docs/statechart.md alone would
    // not bring the chart under 500 again (14 refusals at 5 lines each are most of the rest). 660 until issue 32,
    // whose two sandbox refusals took it to 663.
    expect(source.split('\n').length, 'lines of src/machines/ralph.machine.ts').toBeLessThanOrEqual(730);
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
    const awaiting = ralphMachine.root.states.running?.states.round;
    const reviewing = ralphMachine.root.states.running?.states.reviewingReport;
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
    for (const node of [reviewing, ...Object.values(reviewing.states)]) {
      expect([...node.transitions.keys()], node.id).toEqual([]);
      expect(node.invoke, node.id).toEqual([]);
      expect(node.after, node.id).toEqual([]);
    }
    expect(reviewing.always).toBeUndefined();
    const { checking, accepted } = reviewing.states;
    expect(checking?.always?.length).toBe(4);
    expect(accepted?.always?.length).toBe(9);
    // An accepted report is accepted and announced once, on the way into `accepted`, whatever follows it.
    const actionName = (a: unknown) => (typeof a === 'string' ? a : (a as { type: string }).type);
    expect(checking?.always?.map((t) => t.actions.map(actionName))).toEqual([
      ['failMissingReport'],
      ['failMalformedReport'],
      ['failOversizedReport'],
      ['acceptReport', 'announceReport'],
    ]);
  });

  test("the verdict is reviewed once, after the evaluator's usage is recorded, on the way into reviewingVerdict, which takes no event and invokes nothing", () => {
    const awaiting = ralphMachine.root.states.running?.states.evaluating?.states.awaitingVerdict;
    const reviewing = ralphMachine.root.states.running?.states.reviewingVerdict;
    if (awaiting === undefined || reviewing === undefined) throw new Error('a verdict state is missing');
    const actionName = (a: unknown) => (typeof a === 'string' ? a : (a as { type: string }).type);
    const byEvent = (prefix: string) =>
      [...awaiting.transitions.values()]
        .flat()
        .filter((t) => t.eventType.startsWith(prefix))
        .map((t) => t.actions.map(actionName));
    // What the evaluator said it spent counts toward the cost budget whether or not a verdict came.
    expect(byEvent('xstate.done')).toEqual([['recordEvaluatorUsage', 'reviewVerdict']]);
    expect(byEvent('xstate.error')).toEqual([['recordEvaluatorUsage', 'failEvaluator']]);
    for (const node of [reviewing, ...Object.values(reviewing.states)]) {
      expect([...node.transitions.keys()], node.id).toEqual([]);
      expect(node.invoke, node.id).toEqual([]);
      expect(node.after, node.id).toEqual([]);
    }
    expect(reviewing.always).toBeUndefined();
    const { checking, decided } = reviewing.states;
    // A changed workspace fails the evaluation before its verdict is read: an accept does not excuse it.
    expect(checking?.always?.map((t) => t.actions.map(actionName))).toEqual([
      ['failEvaluatorChangedWorkspace'],
      ['failVerdictMissing'],
      ['failVerdictMalformed'],
      ['failVerdictOversized'],
      ['recordVerdict', 'announceVerdict'],
    ]);
    // A reject is handed on with its findings however the run goes on, and settles budget-limited at the cap.
    expect(decided?.always?.map((t) => t.actions.map(actionName))).toEqual([
      ['settleEvaluated'],
      ['rejectByEvaluator', 'settle'],
      ['rejectByEvaluator'],
      ['rejectByEvaluator'],
    ]);
    const evaluating = ralphMachine.root.states.running?.states.evaluating;
    // Its own entry (the round timer's scheduling, XState's, aside): a fresh review, then the announcement.
    expect(evaluating?.entry.map(actionName).filter((name) => !name.startsWith('xstate.'))).toEqual([
      'beginEvaluation',
      'announceEvaluatorStarted',
    ]);
  });

  test('a question is announced on the way into awaitingAnswer; an answer is handed on once, every other ending settles blocked saying why', () => {
    const awaiting = ralphMachine.root.states.running?.states.awaitingAnswer;
    if (awaiting === undefined) throw new Error('the awaitingAnswer state is missing');
    const actionName = (a: unknown) => (typeof a === 'string' ? a : (a as { type: string }).type);
    // Its own entry (the wait timer's scheduling, XState's, aside): the question, announced once.
    expect(awaiting.entry.map(actionName).filter((name) => !name.startsWith('xstate.'))).toEqual([
      'announceQuestion',
    ]);
    const transitions = [...[...awaiting.transitions.values()].flat(), ...(awaiting.always ?? [])];
    expect(transitions.map((t) => [suite.transitionKey(t), t.actions.map(actionName)])).toEqual([
      [
        'ralph.running.awaitingAnswer on done:awaitAnswer #0 [personAnswered] → ralph.running.nextRound',
        ['acceptAnswer'],
      ],
      ['ralph.running.awaitingAnswer on done:awaitAnswer #1 → ralph.blocked', ['settleUnanswered']],
      ['ralph.running.awaitingAnswer on error:awaitAnswer #0 → ralph.blocked', ['settleUnanswered']],
      ['ralph.running.awaitingAnswer on after:answerWait #0 → ralph.blocked', ['settleUnanswered']],
      ['ralph.running.awaitingAnswer on always #0 [timeBudgetIsSpent] → ralph.blocked', ['settleUnanswered']],
    ]);
    // CANCEL is running's own: no child runs while a question waits, so nothing must stop first.
    expect(awaiting.transitions.has('CANCEL')).toBe(false);
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
          '"runRound" was not provided; run the machine through createRalphEngine',
        round: 1,
        lastHandoff: null,
        detail: 'ralphMachine actor "runRound" was not provided; run the machine through createRalphEngine',
      },
    });
  });
}
