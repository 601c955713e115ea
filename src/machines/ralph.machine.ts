import { assign, emit, fromPromise, setup } from 'xstate';
import {
  isNonEmptyObjective,
  isValidMaxRounds,
  objectiveOf,
  requestedMaxRoundsOf,
  resolveMaxRounds,
} from '../contract/call.js';
import type { RalphFailure } from '../contract/errors.js';
import {
  CALLING_AGENT_MISSING,
  childFailureMessage,
  MAX_ROUNDS_INVALID,
  maxRoundsExceedsCeiling,
  OBJECTIVE_EMPTY,
  providerInheritsParentContext,
  providerLacksStructuredOutput,
  providerNotRegistered,
  WORKFLOW_CANCELLED,
  workflowFailed,
} from '../contract/messages.js';
import { renderRoundPrompt } from '../contract/prompt.js';
import { checkReport, handoffSize, isMissingReport, reportJsonSchema } from '../contract/report.js';
import type {
  AgentRef,
  ChildRequest,
  RalphEnvelope,
  RalphProgressEvent,
  RalphReport,
  RalphResultStatus,
} from '../contract/types.js';

/** Time allowed, past the termination grace, for a SIGKILLed child to be reaped before the run stops waiting. */
export const KILL_MARGIN_MS = 1_000;

/** What the configured provider declared, resolved immediately before the call. */
export interface ProviderSnapshot {
  name: string;
  registered: boolean;
  structuredOutput: boolean;
  inheritsParentContext: boolean;
}

/** Everything a run starts from: plain data, so a run can be recorded and replayed. */
export interface RalphMachineInput {
  runId: string;
  /** The call's arguments exactly as the model sent them. */
  args: unknown;
  /** The calling agent, or null when the call has none. */
  agent: AgentRef | null;
  provider: ProviderSnapshot;
  /** Deployment default and ceiling of a call's maxRounds. */
  maxRounds: number;
  maxHandoffChars: number;
  terminationGraceMs: number;
  /** The engine's own ceiling on children in one run. */
  maxTotalAgents: number;
}

/** The run's context: serializable, no functions, promises or controllers. */
export interface RalphContext {
  runId: string;
  objectiveInput: unknown;
  requestedMaxRounds: unknown;
  agent: AgentRef | null;
  provider: ProviderSnapshot;
  deploymentMaxRounds: number;
  maxHandoffChars: number;
  terminationGraceMs: number;
  maxTotalAgents: number;
  /** The accepted objective ('' until the call is accepted). */
  objective: string;
  /** The resolved round cap (0 until the call is accepted). */
  maxRounds: number;
  /** The current round; also the number of rounds started. */
  round: number;
  agentsStarted: number;
  childId: string | null;
  /** The last validated report: the handoff to the next round. */
  handoff: RalphReport | null;
  outcome: RalphOutput | null;
}

/** How a run ended: the envelope, or the failure, refusal or cancellation. */
export type RalphOutput = { ok: true; envelope: RalphEnvelope } | { ok: false; failure: RalphFailure };

/** Events a host sends to a run. */
export type RalphEvent = { type: 'CANCEL' };

/** What `startChild` resolves with once the provider has started the child. */
export interface ChildStarted {
  childId: string;
}

/** Identifies one round's child to the actors that wait on it. */
export interface RoundRef {
  runId: string;
  round: number;
}

const notProvided = (name: string) => () => {
  throw new Error(`ralphMachine actor "${name}" was not provided; run the machine through createRalphEngine`);
};

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const reportOf = (output: unknown): RalphReport | null => {
  const checked = checkReport(output);
  return checked.ok ? checked.report : null;
};

const fail = (failure: RalphFailure): { outcome: RalphOutput } => ({ outcome: { ok: false, failure } });

/**
 * The ralph run. A call is checked in `validating` (arguments, ceilings, calling agent, provider capabilities:
 * the first failing check speaks) and refused without starting anything. An accepted call runs rounds: `round`
 * asks the provider for one fresh child, `awaitingReport` waits for its structured report, and the report's
 * status, validity, size and the round cap decide whether another round starts or the run settles as complete,
 * blocked or budget-limited. A provider that cannot start, or a report that is missing, malformed or over the
 * handoff cap, fails the workflow; a child that fails before reporting fails the run with the last good handoff.
 * Nothing is retried. Cancellation is a state: it aborts the child and waits, bounded, until the child stopped.
 */
export const ralphMachine = setup({
  types: {
    context: {} as RalphContext,
    input: {} as RalphMachineInput,
    events: {} as RalphEvent,
    output: {} as RalphOutput,
    emitted: {} as RalphProgressEvent,
  },
  actors: {
    /** Starts one fresh child through the provider; rejects on a provider-start failure. */
    startChild: fromPromise<ChildStarted, ChildRequest>(notProvided('startChild')),
    /** Resolves with the child's raw structured output; rejects on an ordinary child failure. */
    awaitReport: fromPromise<unknown, RoundRef>(notProvided('awaitReport')),
    /** Settles once a cancelled round's child has stopped. */
    awaitChildStopped: fromPromise<void, RoundRef>(notProvided('awaitChildStopped')),
  },
  guards: {
    objectiveIsEmpty: ({ context }) => !isNonEmptyObjective(context.objectiveInput),
    maxRoundsIsInvalid: ({ context }) => !isValidMaxRounds(context.requestedMaxRounds),
    maxRoundsExceedsDeploymentCeiling: ({ context }) =>
      resolveMaxRounds(context.requestedMaxRounds, context.deploymentMaxRounds) > context.deploymentMaxRounds,
    maxRoundsExceedsEngineCeiling: ({ context }) =>
      resolveMaxRounds(context.requestedMaxRounds, context.deploymentMaxRounds) > context.maxTotalAgents,
    callingAgentIsMissing: ({ context }) => context.agent === null,
    providerIsNotRegistered: ({ context }) => !context.provider.registered,
    providerLacksStructuredOutput: ({ context }) => !context.provider.structuredOutput,
    providerInheritsParentContext: ({ context }) => context.provider.inheritsParentContext,
    reportIsMissing: (_, params: { output: unknown }) => isMissingReport(params.output),
    reportIsMalformed: (_, params: { output: unknown }) => !checkReport(params.output).ok,
    reportExceedsHandoffCap: (_, params: { output: unknown; maxHandoffChars: number }) => {
      const report = reportOf(params.output);
      return report !== null && handoffSize(report) > params.maxHandoffChars;
    },
    reportIsComplete: (_, params: { output: unknown }) => reportOf(params.output)?.status === 'complete',
    reportIsBlocked: (_, params: { output: unknown }) => reportOf(params.output)?.status === 'blocked',
    roundCapReached: (_, params: { round: number; maxRounds: number }) => params.round >= params.maxRounds,
  },
  actions: {
    refuse: assign((_, params: { message: string }) => fail({ code: 'refused', message: params.message })),
    acceptCall: assign(({ context }) => ({
      objective: context.objectiveInput as string,
      maxRounds: resolveMaxRounds(context.requestedMaxRounds, context.deploymentMaxRounds),
    })),
    beginRound: assign(({ context }) => ({ round: context.round + 1, childId: null })),
    announceRound: emit(({ context }) => ({
      type: 'round-started' as const,
      runId: context.runId,
      round: context.round,
      maxRounds: context.maxRounds,
    })),
    recordChildStarted: assign(({ context }, params: { childId: string }) => ({
      agentsStarted: context.agentsStarted + 1,
      childId: params.childId,
    })),
    announceChild: emit(({ context }, params: { childId: string }) => ({
      type: 'child-started' as const,
      runId: context.runId,
      round: context.round,
      maxRounds: context.maxRounds,
      childId: params.childId,
    })),
    failProviderStart: assign(({ context }, params: { error: unknown }) =>
      fail({
        code: 'workflow-failed',
        message: workflowFailed(
          `subagent provider "${context.provider.name}" failed to start round ${context.round}: ${errorText(params.error)}`,
        ),
        round: context.round,
        lastHandoff: context.handoff,
        detail: errorText(params.error),
      }),
    ),
    failChild: assign(({ context }, params: { error: unknown }) =>
      fail({
        code: 'child-failed',
        message: childFailureMessage(context.round, context.handoff),
        round: context.round,
        lastHandoff: context.handoff,
        detail: errorText(params.error),
      }),
    ),
    failMissingReport: assign(({ context }) =>
      fail({
        code: 'workflow-failed',
        message: workflowFailed(`round ${context.round} child finished without a structured report`),
        round: context.round,
        lastHandoff: context.handoff,
      }),
    ),
    failMalformedReport: assign(({ context }, params: { output: unknown }) => {
      const checked = checkReport(params.output);
      const problem = checked.ok ? 'unknown problem' : checked.problem;
      return fail({
        code: 'workflow-failed',
        message: workflowFailed(`round ${context.round} report is malformed: ${problem}`),
        round: context.round,
        lastHandoff: context.handoff,
        detail: problem,
      });
    }),
    failOversizedReport: assign(({ context }, params: { output: unknown }) => {
      const report = reportOf(params.output);
      const size = report === null ? 0 : handoffSize(report);
      return fail({
        code: 'workflow-failed',
        message: workflowFailed(
          `round ${context.round} report is ${size} characters, over the handoff cap of ${context.maxHandoffChars}`,
        ),
        round: context.round,
        lastHandoff: context.handoff,
      });
    }),
    acceptReport: assign((_, params: { output: unknown }) => ({ handoff: reportOf(params.output) })),
    announceReport: emit(({ context }) => ({
      type: 'report-accepted' as const,
      runId: context.runId,
      round: context.round,
      maxRounds: context.maxRounds,
      report: context.handoff as RalphReport,
    })),
    settle: assign(({ context }, params: { status: RalphResultStatus }) => ({
      outcome: {
        ok: true as const,
        envelope: {
          runId: context.runId,
          agentsStarted: context.agentsStarted,
          result: { status: params.status, rounds: context.round, report: context.handoff as RalphReport },
        },
      },
    })),
    settleCancelled: assign(({ context }) =>
      fail({
        code: 'cancelled',
        message: WORKFLOW_CANCELLED,
        // Only a started round can be cancelled: validating never waits.
        round: context.round,
        lastHandoff: context.handoff,
      }),
    ),
  },
  delays: {
    cancelDeadline: ({ context }) => context.terminationGraceMs + KILL_MARGIN_MS,
  },
}).createMachine({
  id: 'ralph',
  context: ({ input }) => ({
    runId: input.runId,
    objectiveInput: objectiveOf(input.args),
    requestedMaxRounds: requestedMaxRoundsOf(input.args),
    agent: input.agent,
    provider: input.provider,
    deploymentMaxRounds: input.maxRounds,
    maxHandoffChars: input.maxHandoffChars,
    terminationGraceMs: input.terminationGraceMs,
    maxTotalAgents: input.maxTotalAgents,
    objective: '',
    maxRounds: 0,
    round: 0,
    agentsStarted: 0,
    childId: null,
    handoff: null,
    outcome: null,
  }),
  initial: 'validating',
  output: ({ context }) => context.outcome as RalphOutput,
  states: {
    // Checks the call before anything starts; the first failing check gives the refusal.
    validating: {
      always: [
        {
          guard: 'objectiveIsEmpty',
          target: 'rejected',
          actions: { type: 'refuse', params: { message: OBJECTIVE_EMPTY } },
        },
        {
          guard: 'maxRoundsIsInvalid',
          target: 'rejected',
          actions: { type: 'refuse', params: { message: MAX_ROUNDS_INVALID } },
        },
        {
          guard: 'maxRoundsExceedsDeploymentCeiling',
          target: 'rejected',
          actions: {
            type: 'refuse',
            params: ({ context }) => ({
              message: maxRoundsExceedsCeiling(
                resolveMaxRounds(context.requestedMaxRounds, context.deploymentMaxRounds),
                context.deploymentMaxRounds,
              ),
            }),
          },
        },
        {
          guard: 'maxRoundsExceedsEngineCeiling',
          target: 'rejected',
          actions: {
            type: 'refuse',
            params: ({ context }) => ({
              message: maxRoundsExceedsCeiling(
                resolveMaxRounds(context.requestedMaxRounds, context.deploymentMaxRounds),
                context.maxTotalAgents,
              ),
            }),
          },
        },
        {
          guard: 'callingAgentIsMissing',
          target: 'rejected',
          actions: { type: 'refuse', params: { message: CALLING_AGENT_MISSING } },
        },
        {
          guard: 'providerIsNotRegistered',
          target: 'rejected',
          actions: {
            type: 'refuse',
            params: ({ context }) => ({ message: providerNotRegistered(context.provider.name) }),
          },
        },
        {
          guard: 'providerLacksStructuredOutput',
          target: 'rejected',
          actions: {
            type: 'refuse',
            params: ({ context }) => ({ message: providerLacksStructuredOutput(context.provider.name) }),
          },
        },
        {
          guard: 'providerInheritsParentContext',
          target: 'rejected',
          actions: {
            type: 'refuse',
            params: ({ context }) => ({ message: providerInheritsParentContext(context.provider.name) }),
          },
        },
        { target: 'round', actions: 'acceptCall' },
      ],
    },
    // Starts exactly one fresh child for this round; a provider that cannot start it fails the workflow.
    round: {
      entry: ['beginRound', 'announceRound'],
      invoke: {
        src: 'startChild',
        input: ({ context }) => ({
          runId: context.runId,
          round: context.round,
          maxRounds: context.maxRounds,
          objective: context.objective,
          handoff: context.handoff,
          prompt: renderRoundPrompt({
            objective: context.objective,
            round: context.round,
            maxRounds: context.maxRounds,
            handoff: context.handoff,
          }),
          outputSchema: structuredClone(reportJsonSchema),
          cwd: (context.agent as AgentRef).cwd,
          parent: context.agent as AgentRef,
        }),
        onDone: {
          target: 'awaitingReport',
          actions: [
            { type: 'recordChildStarted', params: ({ event }) => ({ childId: event.output.childId }) },
            { type: 'announceChild', params: ({ event }) => ({ childId: event.output.childId }) },
          ],
        },
        onError: {
          target: 'failed',
          actions: { type: 'failProviderStart', params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: { CANCEL: 'cancelling' },
    },
    // Waits for the child's structured report, then lets the report and the round cap decide what follows.
    awaitingReport: {
      invoke: {
        src: 'awaitReport',
        input: ({ context }) => ({ runId: context.runId, round: context.round }),
        onDone: [
          {
            guard: { type: 'reportIsMissing', params: ({ event }) => ({ output: event.output }) },
            target: 'failed',
            actions: 'failMissingReport',
          },
          {
            guard: { type: 'reportIsMalformed', params: ({ event }) => ({ output: event.output }) },
            target: 'failed',
            actions: { type: 'failMalformedReport', params: ({ event }) => ({ output: event.output }) },
          },
          {
            guard: {
              type: 'reportExceedsHandoffCap',
              params: ({ context, event }) => ({
                output: event.output,
                maxHandoffChars: context.maxHandoffChars,
              }),
            },
            target: 'failed',
            actions: { type: 'failOversizedReport', params: ({ event }) => ({ output: event.output }) },
          },
          {
            guard: { type: 'reportIsComplete', params: ({ event }) => ({ output: event.output }) },
            target: 'complete',
            actions: [
              { type: 'acceptReport', params: ({ event }) => ({ output: event.output }) },
              'announceReport',
              { type: 'settle', params: { status: 'complete' } },
            ],
          },
          {
            guard: { type: 'reportIsBlocked', params: ({ event }) => ({ output: event.output }) },
            target: 'blocked',
            actions: [
              { type: 'acceptReport', params: ({ event }) => ({ output: event.output }) },
              'announceReport',
              { type: 'settle', params: { status: 'blocked' } },
            ],
          },
          {
            guard: {
              type: 'roundCapReached',
              params: ({ context }) => ({ round: context.round, maxRounds: context.maxRounds }),
            },
            target: 'budgetLimited',
            actions: [
              { type: 'acceptReport', params: ({ event }) => ({ output: event.output }) },
              'announceReport',
              { type: 'settle', params: { status: 'budget-limited' } },
            ],
          },
          {
            target: 'round',
            actions: [
              { type: 'acceptReport', params: ({ event }) => ({ output: event.output }) },
              'announceReport',
            ],
          },
        ],
        onError: {
          target: 'failed',
          actions: { type: 'failChild', params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: { CANCEL: 'cancelling' },
    },
    // Holds the run open until the aborted child has stopped, so no child outlives a cancelled run.
    cancelling: {
      invoke: {
        src: 'awaitChildStopped',
        input: ({ context }) => ({ runId: context.runId, round: context.round }),
        onDone: { target: 'cancelled', actions: 'settleCancelled' },
        onError: { target: 'cancelled', actions: 'settleCancelled' },
      },
      after: {
        cancelDeadline: { target: 'cancelled', actions: 'settleCancelled' },
      },
    },
    // A round reported the objective complete (the worker's word, not an independent check).
    complete: { type: 'final' },
    // A round reported a concrete blocker.
    blocked: { type: 'final' },
    // The round cap was reached while the last report still had work remaining.
    budgetLimited: { type: 'final' },
    // The workflow or a child failed; the outcome names the round and keeps the last good handoff.
    failed: { type: 'final' },
    // The call was refused by validation; no child was started.
    rejected: { type: 'final' },
    // The run was cancelled and its child has stopped (or was abandoned after the deadline).
    cancelled: { type: 'final' },
  },
});

/** The run machine's type, for hosts that interpret it directly. */
export type RalphMachine = typeof ralphMachine;
