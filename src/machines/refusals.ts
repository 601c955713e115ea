import { resolveMaxRounds } from '../contract/call.js';
import {
  evaluatorInheritsParentContext,
  evaluatorLacksCostReports,
  evaluatorLacksStructuredOutput,
  evaluatorNotRegistered,
} from '../contract/evaluator-messages.js';
import { costBudgetNeedsCostReports } from '../contract/guard-rail-messages.js';
import {
  CALLING_AGENT_MISSING,
  MAX_ROUNDS_INVALID,
  maxRoundsExceedsCeiling,
  OBJECTIVE_EMPTY,
  providerInheritsParentContext,
  providerLacksStructuredOutput,
  providerNotRegistered,
  resumeRefused,
} from '../contract/messages.js';
import { providerCannotSandbox } from '../contract/sandbox-messages.js';
import { evaluatorOf, railOf } from './ralph.context.js';
import type { RalphContext } from './ralph.types.js';
import { resumePointProblem } from './resume-point-problem.js';

/** The round cap the call asks for, or the deployment's default when it asks for none. */
export const requestedCapOf = (context: RalphContext): number =>
  resolveMaxRounds(context.call.requestedMaxRounds, context.call.deploymentMaxRounds);

/**
 * What `validating` says when a check fails, by the name of the check's guard: the chart reads
 * `{ type: 'refuse', params: { check: 'maxRoundsIsInvalid' } }`, a literal Stately shows, and the words live here.
 */
export const REFUSALS = {
  objectiveIsEmpty: () => OBJECTIVE_EMPTY,
  maxRoundsIsInvalid: () => MAX_ROUNDS_INVALID,
  maxRoundsExceedsDeploymentCeiling: (context: RalphContext) =>
    maxRoundsExceedsCeiling(requestedCapOf(context), context.call.deploymentMaxRounds),
  maxRoundsExceedsEngineCeiling: (context: RalphContext) =>
    maxRoundsExceedsCeiling(requestedCapOf(context), context.call.maxTotalAgents),
  callingAgentIsMissing: () => CALLING_AGENT_MISSING,
  providerIsNotRegistered: (context: RalphContext) => providerNotRegistered(context.call.provider.name),
  providerLacksStructuredOutput: (context: RalphContext) =>
    providerLacksStructuredOutput(context.call.provider.name),
  providerInheritsParentContext: (context: RalphContext) =>
    providerInheritsParentContext(context.call.provider.name),
  costBudgetLacksCostReports: (context: RalphContext) =>
    costBudgetNeedsCostReports(context.call.provider.name, railOf(context, 'maxCostUsd')),
  evaluatorIsNotRegistered: (context: RalphContext) => evaluatorNotRegistered(evaluatorOf(context).name),
  evaluatorLacksStructuredOutput: (context: RalphContext) =>
    evaluatorLacksStructuredOutput(evaluatorOf(context).name),
  evaluatorInheritsParentContext: (context: RalphContext) =>
    evaluatorInheritsParentContext(evaluatorOf(context).name),
  evaluatorLacksCostReports: (context: RalphContext) => evaluatorLacksCostReports(evaluatorOf(context).name),
  providerCannotSandbox: (context: RalphContext) =>
    providerCannotSandbox(context.call.provider.name, 'subagent'),
  evaluatorCannotSandbox: (context: RalphContext) =>
    providerCannotSandbox(evaluatorOf(context).name, 'evaluator'),
  resumePointIsInvalid: (context: RalphContext) => resumeRefused(resumePointProblem(context) as string),
} satisfies Record<string, (context: RalphContext) => string>;

/** The name of one of `validating`'s checks (its guard's name). */
export type CallCheck = keyof typeof REFUSALS;
