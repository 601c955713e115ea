import { errorText } from '../contract/error-text.js';
import { usageOfFailure } from '../contract/usage.js';
import {
  childRequestOf,
  evaluatorRequestOf,
  fingerprintRequestOf,
  initialContext,
  questionOf,
  roundRefOf,
  verifyRequestOf,
} from './ralph.context.js';
import { ralphSetup } from './ralph.setup.js';
import type { RalphOutput } from './ralph.types.js';

// The chart. Its guards, actions, actors and delays are named in ralph.setup.ts; what its invokes are given and the
// context it starts with, in ralph.context.ts; its data types in ralph.types.ts, re-exported here for the hosts and
// actors that import them with the machine.
export * from './limit-wait.js';
export * from './ralph.types.js';

/**
 * The ralph run, as nested boxes. A call is checked in `validating` (arguments, ceilings, calling agent, provider
 * capabilities: the first failing check speaks) and refused without starting anything. An accepted call is
 * `running`: each `round` invokes one actor, `runRound`, that starts one fresh child (`starting`, until it tells
 * `CHILD_STARTED`) and waits for its structured report (`awaitingReport`); `reviewingReport` is the decision after a report: `checking` refuses a missing, malformed or
 * oversized report (the workflow fails), or accepts and announces it once, and `accepted` lets its status and the
 * round cap decide whether another round starts or the run settles as complete, blocked or budget-limited. A
 * provider that cannot start fails the workflow; a child that fails before reporting fails the run with the last
 * good handoff. Nothing is retried. Cancellation is written once, on `running`; where something of the run is still
 * running, `cancelling` aborts it and waits, bounded, until it stopped (`child`, or the `verifyCommand`).
 *
 * The guard rails (`input.guardRails`) are opt-in; with all of them off every one of their guards is false and
 * no timer of theirs takes a transition, so the run is exactly the reference's:
 * - Round timeout: the `round` box holds one delayed transition (`roundTimeout`), timed from the round's start, for
 *   the child's start and its report together, to `stoppingRound`, which stops the child like a cancellation and
 *   then, through `roundStopped`, fails the run with the reference's child-failure message.
 * - Wall clock: a delayed transition of the root (`xstate.after.wallClock.ralph`), timed from the run's start,
 *   marks the budget spent; the `round` box then leaves for `stoppingRound` at once, and no round starts after it
 *   (`nextRound` checks it after a verify command or a fingerprint; a report cannot arrive once it ran out, since
 *   the round is stopped at once). The run ends budget-limited with the last good report, or failed when no round
 *   had reported yet (an envelope needs a report). A verify command or a fingerprint that is running is not
 *   interrupted: each is bounded on its own, and the next gate settles the run. The clock is the root's, not
 *   `running`'s, so that it goes on while a round or a cancellation is being stopped.
 * - Verify: a complete report goes to `verifying`, which runs the command; exit 0 completes the run, anything
 *   else hands the report and the failure to the next round (within the round cap), and a command that cannot
 *   start fails the workflow. CANCEL there waits in `cancelling.verifyCommand` until the command has stopped.
 * - Cost: with a cost budget (`guardRails.maxCostUsd`) a provider that does not declare `reportsCost` is refused in
 *   `validating`; once the cost the rounds' agents reported has reached the budget, `reviewingReport.accepted`
 *   (after the round cap) and `nextRound` settle the run budget-limited instead of starting a round
 *   (`costBudgetIsSpent`). A round that is running is never stopped for cost: what it cost is known only once it
 *   reported. What a round's agent said it spent counts whether or not its report is accepted (`recordUsage` on a
 *   malformed report, a usage limit and a child failure too: a failed round's usage travels on its error).
 * - Usage limits: a round whose agent hit a usage or rate limit (`runRound` resolves with its `limit`) fails
 *   the run as that round's child failure, the limit and its reset in the detail; with `guardRails.waitOnLimits`
 *   it goes to `waitingForLimit` instead, which runs the round again after the reset (a delayed transition).
 * - Evaluator (`input.evaluator`, opt-in like the guard rails): a complete report (once a verify command passed)
 *   goes to `evaluating`, which snapshots the workspace and starts one fresh evaluator child with the objective and
 *   the report alone; it answers with a verdict of its own. `reviewingVerdict` fails the workflow when the evaluator
 *   changed the workspace or its verdict is missing, malformed or oversized; an accept completes the run; a reject
 *   hands the report with its findings to the next round, within the round cap (at the cap, budget-limited with the
 *   last rejection). CANCEL, the round timeout and the time limit stop an evaluator as they stop a round
 *   (`cancelling.evaluator`, `stoppingEvaluator`); its usage counts toward the cost budget; a resume point taken
 *   while it ran evaluates again (`isResumingEvaluation`).
 * - Asking (`guardRails.waitForAnswersMs`, `--ask`): a blocked report within the round cap and the budgets goes to
 *   `awaitingAnswer` instead of ending the run; `awaitAnswer` resolves with a person's answer, which starts the next
 *   round through `nextRound` (the blocked report and the answer as its handoff), or a give-up; a give-up, the
 *   wait's own timer (`answerWait`), the time limit or a source that fails end the run blocked, saying why
 *   (`result.question`). A resume point taken while it waited waits again (`isResumingQuestion`).
 * - Idle: `fingerprinting` fingerprints the workspace before round 1 and after every round that leaves work
 *   remaining (a rejected completion included); that many unchanged rounds in a row end the run budget-limited.
 *
 * Every invoke has a literal id, the name of the actor it runs, so the events a run takes read
 * `CHILD_STARTED` (the one event an actor sends its run), `xstate.done.actor.runRound`,
 * `xstate.error.actor.runRound`, `xstate.done.actor.awaitChildStopped` and so on, in a recording as in the inspector; the cancel deadline is `xstate.after.cancelDeadline.ralph.cancelling`.
 * Targets outside a state's own box are written by id (`#ralph.failed`). Each state says why it exists in its
 * `description`. Tags tell a host what it may rely on, whatever the state's path (a box's tag holds in every state
 * inside it):
 * - `childRunning` (`running.round`, `stoppingRound`, `cancelling.child`): a child may be running, being started,
 *   working or being stopped; the run must be cancelled, not dropped, while this holds.
 * - `settled` (every final state): the run is over and its outcome is in the output; no child of it still runs
 *   (unless one that ignored its abort was abandoned past the cancel deadline).
 * - `succeeded` (`complete`, `blocked`, `budgetLimited`): the run ended with an envelope (`output.ok`); a blocked or
 *   budget-limited run succeeded as a run, whatever its worker reported.
 * - `failure` (`failed`, `rejected`, `cancelled`): the run ended with a failure (`output.failure`): a refused call,
 *   a workflow or child failure, or a cancellation.
 */
export const ralphMachine = ralphSetup.createMachine({
  id: 'ralph',
  description:
    'One immutable objective handed to a fresh child agent per round, until a round reports it complete or blocked, the round cap is reached, the run fails or it is cancelled.',
  context: initialContext,
  initial: 'validating',
  output: ({ context }) => context.outcome as RalphOutput,
  // The wall clock runs from the start of the run to its end, whatever state it is in: a round running when it
  // runs out is stopped (the `round` box watches outOfTime), and no round starts after it.
  after: {
    wallClock: { guard: 'wallClockIsRunning', actions: ['markOutOfTime', 'announceTimeLimit'] },
  },
  states: {
    validating: {
      description: 'Checks the call before anything starts; the first failing check gives the refusal.',
      // Each refusal is named after the check that failed; `refuse` words it (refusals.ts).
      always: [
        {
          guard: 'objectiveIsEmpty',
          target: 'rejected',
          actions: { type: 'refuse', params: { check: 'objectiveIsEmpty' } },
        },
        {
          guard: 'maxRoundsIsInvalid',
          target: 'rejected',
          actions: { type: 'refuse', params: { check: 'maxRoundsIsInvalid' } },
        },
        {
          guard: 'maxRoundsExceedsDeploymentCeiling',
          target: 'rejected',
          actions: { type: 'refuse', params: { check: 'maxRoundsExceedsDeploymentCeiling' } },
        },
        {
          guard: 'maxRoundsExceedsEngineCeiling',
          target: 'rejected',
          actions: { type: 'refuse', params: { check: 'maxRoundsExceedsEngineCeiling' } },
        },
        {
          guard: 'callingAgentIsMissing',
          target: 'rejected',
          actions: { type: 'refuse', params: { check: 'callingAgentIsMissing' } },
        },
        {
          guard: 'providerIsNotRegistered',
          target: 'rejected',
          actions: { type: 'refuse', params: { check: 'providerIsNotRegistered' } },
        },
        {
          guard: 'providerLacksStructuredOutput',
          target: 'rejected',
          actions: { type: 'refuse', params: { check: 'providerLacksStructuredOutput' } },
        },
        {
          guard: 'providerInheritsParentContext',
          target: 'rejected',
          actions: { type: 'refuse', params: { check: 'providerInheritsParentContext' } },
        },
        {
          guard: 'costBudgetLacksCostReports',
          target: 'rejected',
          actions: { type: 'refuse', params: { check: 'costBudgetLacksCostReports' } },
        },
        {
          guard: 'evaluatorIsNotRegistered',
          target: 'rejected',
          actions: { type: 'refuse', params: { check: 'evaluatorIsNotRegistered' } },
        },
        {
          guard: 'evaluatorLacksStructuredOutput',
          target: 'rejected',
          actions: { type: 'refuse', params: { check: 'evaluatorLacksStructuredOutput' } },
        },
        {
          guard: 'evaluatorInheritsParentContext',
          target: 'rejected',
          actions: { type: 'refuse', params: { check: 'evaluatorInheritsParentContext' } },
        },
        {
          guard: 'evaluatorLacksCostReports',
          target: 'rejected',
          actions: { type: 'refuse', params: { check: 'evaluatorLacksCostReports' } },
        },
        {
          guard: 'providerCannotSandbox',
          target: 'rejected',
          actions: { type: 'refuse', params: { check: 'providerCannotSandbox' } },
        },
        {
          guard: 'evaluatorCannotSandbox',
          target: 'rejected',
          actions: { type: 'refuse', params: { check: 'evaluatorCannotSandbox' } },
        },
        {
          guard: 'resumePointIsInvalid',
          target: 'rejected',
          actions: { type: 'refuse', params: { check: 'resumePointIsInvalid' } },
        },
        {
          guard: 'isResumingEvaluation',
          target: 'running.evaluating',
          actions: ['acceptCall', 'restoreProgress'],
        },
        {
          guard: 'isResumingQuestion',
          target: 'running.awaitingAnswer',
          actions: ['acceptCall', 'restoreProgress'],
        },
        { guard: 'isResuming', target: 'running.round', actions: ['acceptCall', 'restoreProgress'] },
        { guard: 'idleWatchIsOn', target: 'running.fingerprinting', actions: 'acceptCall' },
        { target: 'running.round', actions: 'acceptCall' },
      ],
    },
    running: {
      description:
        'An accepted call at work: rounds, the decision after each report and the guard rails between rounds. CANCEL ends it here at once unless something of the run is still running (a round, a verify command), which is stopped first.',
      initial: 'round',
      on: { CANCEL: 'cancelled' },
      states: {
        round: {
          description:
            "One round: one actor starts one fresh child and awaits its report, under one round timer; a round the timer or the run's time limit ends is stopped.",
          tags: ['childRunning'],
          initial: 'starting',
          entry: ['beginRound', 'announceRound'],
          on: { CANCEL: '#ralph.cancelling.child' },
          // One actor a round (an Actor, its snapshots and its stop cost as much as a microstep): it tells
          // CHILD_STARTED between the child's start and its report, which moves `starting` to `awaitingReport`.
          invoke: {
            id: 'runRound',
            src: 'runRound',
            input: childRequestOf,
            // What the round's agent said it used is recorded first, whatever follows: the decision weighs it.
            onDone: [
              {
                guard: { type: 'roundHitLimitAndWaits', params: ({ event }) => event.output },
                target: '#ralph.running.waitingForLimit',
                actions: [
                  { type: 'recordUsage', params: ({ event }) => event.output },
                  { type: 'recordLimitWait', params: ({ event }) => event.output },
                  { type: 'announceLimitWait', params: ({ event }) => event.output },
                ],
              },
              {
                guard: { type: 'roundHitLimit', params: ({ event }) => event.output },
                target: '#ralph.failed',
                actions: [
                  { type: 'recordUsage', params: ({ event }) => event.output },
                  { type: 'failUsageLimit', params: ({ event }) => event.output },
                ],
              },
              {
                target: '#ralph.running.reviewingReport',
                actions: [
                  { type: 'recordUsage', params: ({ event }) => event.output },
                  { type: 'reviewReport', params: ({ event }) => event.output },
                ],
              },
            ],
            // Before CHILD_STARTED the provider could not start the child: the workflow fails. After it, the child
            // failed; what its agent said it spent counts though no report came (it travels on the error).
            onError: [
              {
                guard: 'childIsStarting',
                target: '#ralph.failed',
                actions: { type: 'failProviderStart', params: ({ event }) => ({ error: event.error }) },
              },
              {
                target: '#ralph.failed',
                actions: [
                  { type: 'recordUsage', params: ({ event }) => ({ usage: usageOfFailure(event.error) }) },
                  { type: 'failChild', params: ({ event }) => ({ error: event.error }) },
                ],
              },
            ],
          },
          after: {
            roundTimeout: {
              guard: 'roundTimeoutIsSet',
              target: '#ralph.stoppingRound',
              actions: 'stopRoundForTimeout',
            },
          },
          always: {
            guard: 'timeBudgetIsSpent',
            target: '#ralph.stoppingRound',
            actions: 'stopRoundForTimeLimit',
          },
          states: {
            starting: {
              description:
                "The round's actor is starting exactly one fresh child; a provider that cannot start it fails the workflow.",
              on: {
                CHILD_STARTED: {
                  target: 'awaitingReport',
                  actions: [
                    { type: 'recordChildStarted', params: ({ event }) => ({ childId: event.childId }) },
                    { type: 'announceChild', params: ({ event }) => ({ childId: event.childId }) },
                  ],
                },
              },
            },
            awaitingReport: {
              description:
                "The child has started: the round's actor waits for its structured report, reviewed once on the way to the decision.",
            },
          },
        },
        reviewingReport: {
          description:
            'The decision after a report, so that it is a state a diagram shows and the report is checked once: first whether the review accepted the report, then what follows it. Eventless: a run never rests here, and nothing (CANCEL included) can arrive while it is here.',
          initial: 'checking',
          states: {
            checking: {
              description:
                'A report the review refused fails the workflow; any other is accepted and announced, once.',
              always: [
                { guard: 'reportIsMissing', target: '#ralph.failed', actions: 'failMissingReport' },
                { guard: 'reportIsMalformed', target: '#ralph.failed', actions: 'failMalformedReport' },
                { guard: 'reportExceedsHandoffCap', target: '#ralph.failed', actions: 'failOversizedReport' },
                { target: 'accepted', actions: ['acceptReport', 'announceReport'] },
              ],
            },
            accepted: {
              description:
                'What follows an accepted report: its status, then the round cap, the cost budget and the idle watch decide between settling the run and another round.',
              always: [
                { guard: 'completionNeedsVerifying', target: '#ralph.running.verifying' },
                { guard: 'completionNeedsEvaluating', target: '#ralph.running.evaluating' },
                {
                  guard: 'reportIsComplete',
                  target: '#ralph.complete',
                  actions: { type: 'settle', params: { status: 'complete' } },
                },
                { guard: 'blockedWaitsForAnswer', target: '#ralph.running.awaitingAnswer' },
                {
                  guard: 'reportIsBlocked',
                  target: '#ralph.blocked',
                  actions: { type: 'settle', params: { status: 'blocked' } },
                },
                {
                  guard: 'roundCapReached',
                  target: '#ralph.budgetLimited',
                  actions: { type: 'settle', params: { status: 'budget-limited' } },
                },
                { guard: 'costBudgetIsSpent', target: '#ralph.budgetLimited', actions: 'settleCostLimited' },
                { guard: 'idleWatchIsOn', target: '#ralph.running.fingerprinting' },
                { target: '#ralph.running.round' },
              ],
            },
          },
        },
        verifying: {
          description:
            'A round reported complete and a verify command is configured: the completion is accepted only if the command exits 0 in the workspace; otherwise the next round gets the report and the failure as its handoff, within the round cap.',
          entry: 'announceVerifyStarted',
          invoke: {
            id: 'runVerify',
            src: 'runVerify',
            input: verifyRequestOf,
            // A failed command hands the report and its failure to the next round (`rejectCompletion`).
            onDone: [
              {
                guard: { type: 'verifyPassedAndNeedsEvaluating', params: ({ event }) => event.output },
                target: 'evaluating',
                actions: { type: 'announceVerifyPassed', params: ({ event }) => event.output },
              },
              {
                guard: { type: 'verifyPassed', params: ({ event }) => event.output },
                target: '#ralph.complete',
                actions: [
                  { type: 'announceVerifyPassed', params: ({ event }) => event.output },
                  'settleVerified',
                ],
              },
              {
                guard: 'roundCapReached',
                target: '#ralph.budgetLimited',
                actions: [
                  { type: 'rejectCompletion', params: ({ event }) => event.output },
                  { type: 'settle', params: { status: 'budget-limited' } },
                ],
              },
              {
                guard: 'idleWatchIsOn',
                target: 'fingerprinting',
                actions: { type: 'rejectCompletion', params: ({ event }) => event.output },
              },
              {
                target: 'nextRound',
                actions: { type: 'rejectCompletion', params: ({ event }) => event.output },
              },
            ],
            onError: {
              target: '#ralph.failed',
              actions: { type: 'failVerifyStart', params: ({ event }) => ({ error: event.error }) },
            },
          },
          on: { CANCEL: '#ralph.cancelling.verifyCommand' },
        },
        evaluating: {
          description:
            "A round reported complete and an evaluator is configured (after the verify command, if any, passed): one fresh evaluator checks the workspace, not the report's word, and must not change it. CANCEL, the round timeout and the time limit stop it as they stop a round.",
          tags: ['childRunning'],
          initial: 'starting',
          entry: ['beginEvaluation', 'announceEvaluatorStarted'],
          on: { CANCEL: '#ralph.cancelling.evaluator' },
          after: {
            roundTimeout: {
              guard: 'roundTimeoutIsSet',
              target: '#ralph.stoppingEvaluator',
              actions: 'stopRoundForTimeout',
            },
          },
          always: {
            guard: 'timeBudgetIsSpent',
            target: '#ralph.stoppingEvaluator',
            actions: 'stopRoundForTimeLimit',
          },
          states: {
            starting: {
              description:
                "Takes the workspace's snapshot and starts exactly one fresh evaluator; an evaluator provider that cannot start it fails the workflow.",
              invoke: {
                id: 'startEvaluator',
                src: 'startEvaluator',
                input: evaluatorRequestOf,
                onDone: { target: 'awaitingVerdict', actions: 'recordEvaluatorStarted' },
                onError: {
                  target: '#ralph.failed',
                  actions: { type: 'failEvaluatorStart', params: ({ event }) => ({ error: event.error }) },
                },
              },
            },
            awaitingVerdict: {
              description:
                "Waits for the evaluator's structured verdict, then compares the workspace with its snapshot; an evaluator that fails before its verdict fails the workflow.",
              invoke: {
                id: 'awaitVerdict',
                src: 'awaitVerdict',
                input: roundRefOf,
                onDone: {
                  target: '#ralph.running.reviewingVerdict',
                  actions: [
                    { type: 'recordEvaluatorUsage', params: ({ event }) => event.output },
                    { type: 'reviewVerdict', params: ({ event }) => event.output },
                  ],
                },
                onError: {
                  target: '#ralph.failed',
                  actions: [
                    {
                      type: 'recordEvaluatorUsage',
                      params: ({ event }) => ({ usage: usageOfFailure(event.error) }),
                    },
                    { type: 'failEvaluator', params: ({ event }) => ({ error: event.error }) },
                  ],
                },
              },
            },
          },
        },
        reviewingVerdict: {
          description:
            'The decision after a verdict, so that a diagram shows it: an evaluator that changed the workspace, or a missing, malformed or oversized verdict, fails the workflow; an accept completes the run; a reject hands the report and the findings to the next round, within the round cap. Eventless.',
          initial: 'checking',
          states: {
            checking: {
              description:
                'The evaluator changed nothing and its verdict fits the rules and the cap: then it is recorded and announced, once.',
              always: [
                {
                  guard: 'evaluatorChangedWorkspace',
                  target: '#ralph.failed',
                  actions: 'failEvaluatorChangedWorkspace',
                },
                { guard: 'verdictIsMissing', target: '#ralph.failed', actions: 'failVerdictMissing' },
                { guard: 'verdictIsMalformed', target: '#ralph.failed', actions: 'failVerdictMalformed' },
                {
                  guard: 'verdictExceedsHandoffCap',
                  target: '#ralph.failed',
                  actions: 'failVerdictOversized',
                },
                { target: 'decided', actions: ['recordVerdict', 'announceVerdict'] },
              ],
            },
            decided: {
              description:
                "What follows a verdict: an accept completes the run; a reject is no completion, and the round cap, the idle watch and the next round's gate decide what follows, as after a continue report.",
              always: [
                { guard: 'verdictIsAccept', target: '#ralph.complete', actions: 'settleEvaluated' },
                {
                  guard: 'roundCapReached',
                  target: '#ralph.budgetLimited',
                  actions: ['rejectByEvaluator', { type: 'settle', params: { status: 'budget-limited' } }],
                },
                {
                  guard: 'idleWatchIsOn',
                  target: '#ralph.running.fingerprinting',
                  actions: 'rejectByEvaluator',
                },
                { target: '#ralph.running.nextRound', actions: 'rejectByEvaluator' },
              ],
            },
          },
        },
        fingerprinting: {
          description:
            'The idle watch: takes a content fingerprint of the workspace before round 1 and after each round that leaves work remaining; that many unchanged rounds in a row end the run budget-limited.',
          invoke: {
            id: 'fingerprintWorkspace',
            src: 'fingerprintWorkspace',
            input: fingerprintRequestOf,
            onDone: [
              {
                guard: { type: 'idleLimitReached', params: ({ event }) => ({ fingerprint: event.output }) },
                target: '#ralph.budgetLimited',
                actions: [
                  { type: 'recordFingerprint', params: ({ event }) => ({ fingerprint: event.output }) },
                  'announceIdleRound',
                  'settleIdleLimited',
                ],
              },
              {
                guard: { type: 'workspaceUnchanged', params: ({ event }) => ({ fingerprint: event.output }) },
                target: 'nextRound',
                actions: [
                  { type: 'recordFingerprint', params: ({ event }) => ({ fingerprint: event.output }) },
                  'announceIdleRound',
                ],
              },
              {
                target: 'nextRound',
                actions: {
                  type: 'recordFingerprint',
                  params: ({ event }) => ({ fingerprint: event.output }),
                },
              },
            ],
            onError: {
              target: '#ralph.failed',
              actions: { type: 'failFingerprint', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
        nextRound: {
          description:
            'The gate a round passes after a guard rail ran between rounds (the verify command, the evaluator, the fingerprint): once the wall-clock budget or the cost budget is spent no round starts. Eventless: a run never rests here.',
          always: [
            {
              guard: 'timeRanOutBeforeAnyReport',
              target: '#ralph.failed',
              actions: 'failTimeRanOutBeforeRounds',
            },
            { guard: 'timeBudgetIsSpent', target: '#ralph.budgetLimited', actions: 'settleTimeLimited' },
            { guard: 'costBudgetIsSpent', target: '#ralph.budgetLimited', actions: 'settleCostLimited' },
            { target: 'round' },
          ],
        },
        waitingForLimit: {
          description:
            "The round's agent hit a usage or rate limit and --wait-on-limits is on: waits until the limit resets (plus a margin; with no reset time, a backoff that doubles up to 30 minutes), then runs the round again with a fresh child, costing no round of the cap. No child runs here, so CANCEL ends the run at once; once the time limit is spent the run ends budget-limited with the last good report, or failed when none came yet.",
          after: { limitWait: { target: 'round', actions: 'repeatRound' } },
          always: [
            { guard: 'timeRanOutBeforeAnyReport', target: '#ralph.failed', actions: 'failTimeRanOutWaiting' },
            { guard: 'timeBudgetIsSpent', target: '#ralph.budgetLimited', actions: 'settleTimeLimited' },
          ],
        },
        awaitingAnswer: {
          description:
            "A round reported blocked and the run asks a person (--ask): waits, bounded, for an answer; an answer starts the next round with the blocked report and the answer as its handoff. No child runs here, so CANCEL ends the run at once; no answer in time, a person's give-up or the time limit end it blocked, as in the reference.",
          entry: 'announceQuestion',
          invoke: {
            id: 'awaitAnswer',
            src: 'awaitAnswer',
            input: questionOf,
            onDone: [
              {
                guard: { type: 'personAnswered', params: ({ event }) => event.output },
                target: 'nextRound',
                actions: { type: 'acceptAnswer', params: ({ event }) => event.output },
              },
              {
                target: '#ralph.blocked',
                actions: {
                  type: 'settleUnanswered',
                  params: ({ event }) => ({
                    reason: event.output.kind === 'give-up' ? 'given-up' : 'timed-out',
                  }),
                },
              },
            ],
            onError: {
              target: '#ralph.blocked',
              actions: {
                type: 'settleUnanswered',
                params: ({ event }) => ({ reason: 'unavailable', detail: errorText(event.error) }),
              },
            },
          },
          after: {
            answerWait: {
              target: '#ralph.blocked',
              actions: { type: 'settleUnanswered', params: { reason: 'timed-out' } },
            },
          },
          always: {
            guard: 'timeBudgetIsSpent',
            target: '#ralph.blocked',
            actions: { type: 'settleUnanswered', params: { reason: 'time-limit' } },
          },
        },
      },
    },
    stoppingRound: {
      description:
        "A guard rail stopped the round (its timeout, or the run's time limit): holds the run open until the child has stopped, bounded like a cancellation, so that no child outlives the run.",
      tags: ['childRunning'],
      invoke: {
        id: 'awaitChildStopped',
        src: 'awaitChildStopped',
        input: roundRefOf,
        onDone: 'roundStopped',
        onError: 'roundStopped',
      },
      after: { cancelDeadline: 'roundStopped' },
    },
    roundStopped: {
      description:
        "Where a stopped round's ending is decided: a timed-out round fails the run as that round's child failure; a round stopped by the time limit ends it budget-limited with the last good report, or failed when no round had reported yet. Eventless.",
      always: [
        { guard: 'stoppedForRoundTimeout', target: 'failed', actions: 'failRoundTimedOut' },
        { guard: 'timeRanOutBeforeAnyReport', target: 'failed', actions: 'failTimeRanOutInRound' },
        { target: 'budgetLimited', actions: 'settleTimeLimited' },
      ],
    },
    stoppingEvaluator: {
      description:
        "The round timeout or the run's time limit stopped the evaluator: holds the run open until it has stopped, bounded like a cancellation, so that no evaluator outlives the run.",
      tags: ['childRunning'],
      invoke: {
        id: 'awaitEvaluatorStopped',
        src: 'awaitEvaluatorStopped',
        input: roundRefOf,
        onDone: 'evaluatorStopped',
        onError: 'evaluatorStopped',
      },
      after: { cancelDeadline: 'evaluatorStopped' },
    },
    evaluatorStopped: {
      description:
        "Where a stopped evaluation's ending is decided: at the round timeout the workflow fails; at the time limit the run ends budget-limited, the completion not accepted. Eventless.",
      always: [
        { guard: 'stoppedForRoundTimeout', target: 'failed', actions: 'failEvaluatorTimedOut' },
        { target: 'budgetLimited', actions: 'settleTimeLimitedInEvaluation' },
      ],
    },
    cancelling: {
      description:
        'The run was cancelled while something of it ran: holds it open until that has stopped (the aborted child, or the verify command), bounded by the cancel deadline, so that nothing outlives a cancelled run.',
      initial: 'child',
      after: { cancelDeadline: 'cancelled' },
      states: {
        child: {
          description: "Waits until the round's aborted child has stopped.",
          tags: ['childRunning'],
          invoke: {
            id: 'awaitChildStopped',
            src: 'awaitChildStopped',
            input: roundRefOf,
            onDone: '#ralph.cancelled',
            onError: '#ralph.cancelled',
          },
        },
        evaluator: {
          description: 'Waits until the aborted evaluator has stopped.',
          tags: ['childRunning'],
          invoke: {
            id: 'awaitEvaluatorStopped',
            src: 'awaitEvaluatorStopped',
            input: roundRefOf,
            onDone: '#ralph.cancelled',
            onError: '#ralph.cancelled',
          },
        },
        verifyCommand: {
          description: "Waits until the aborted verify command's process group is gone.",
          invoke: {
            id: 'awaitVerifyStopped',
            src: 'awaitVerifyStopped',
            input: roundRefOf,
            onDone: '#ralph.cancelled',
            onError: '#ralph.cancelled',
          },
        },
      },
    },
    complete: {
      type: 'final',
      description:
        "A round reported the objective complete: the worker's word, not an independent check, unless a verify command is configured and exited 0, or an independent evaluator is configured and accepted it.",
      tags: ['settled', 'succeeded'],
    },
    blocked: {
      type: 'final',
      description: 'A round reported a concrete blocker.',
      tags: ['settled', 'succeeded'],
    },
    budgetLimited: {
      type: 'final',
      description:
        'A limit was reached while the last report still had work remaining: the round cap, or a guard rail (the time limit, the idle limit, the cost limit).',
      tags: ['settled', 'succeeded'],
    },
    failed: {
      type: 'final',
      description:
        'The workflow or a child failed; the outcome names the round and keeps the last good handoff.',
      tags: ['settled', 'failure'],
    },
    rejected: {
      type: 'final',
      description:
        'The call was refused by validation and no child was started: an ending of its own, so that a refusal is never mistaken for a failed run.',
      tags: ['settled', 'failure'],
    },
    cancelled: {
      type: 'final',
      entry: 'settleCancelled',
      description: 'The run was cancelled and its child has stopped (or was abandoned after the deadline).',
      tags: ['settled', 'failure'],
    },
  },
});

/** The run machine's type, for hosts that interpret it directly. */
export type RalphMachine = typeof ralphMachine;
