import type { RalphFailure } from '../contract/errors.js';
import type { EvaluatorVerdict, VerdictReview } from '../contract/evaluator-verdict.js';
import type { ReportReview } from '../contract/round-report-review.js';
import type { RalphSandbox } from '../contract/sandbox.js';
import type { AgentRef, GuardRails, RalphEnvelope, RalphReport, VerifySpec } from '../contract/types.js';
import type { RalphUsage } from '../contract/usage.js';

// The run machine's data: its input, context, output, events, tags and what its actors take and give. The chart
// (ralph.machine.ts) and its implementations (ralph.setup.ts) are written against these; hosts and actors too.

/** Time allowed, past the termination grace, for a SIGKILLed child to be reaped before the run stops waiting. */
export const KILL_MARGIN_MS = 1_000;

/** What the configured provider declared, resolved immediately before the call. */
export interface ProviderSnapshot {
  name: string;
  registered: boolean;
  structuredOutput: boolean;
  inheritsParentContext: boolean;
  /** Its children say what each round cost (absent: they do not), so a cost budget can hold. */
  reportsCost?: boolean;
  /** It starts its children in the run's sandbox (set only for a sandboxed run). */
  sandbox?: boolean;
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
  /** Where a resumed run picks up (absent or null: a new run from round 1). */
  resume?: RalphResumePoint | null;
  /** The opt-in guard rails; absent or all null, the run is exactly the reference's. */
  guardRails?: GuardRails;
  /** The independent evaluator's provider, as declared; absent: no evaluator, the worker's report decides. */
  evaluator?: ProviderSnapshot;
  /** The sandbox every process of the run starts in; absent: none, as in the reference. */
  sandbox?: RalphSandbox;
}

/**
 * Where a resumed run picks up: the rounds finished before (their last accepted report is the handoff) and the
 * children started so far. The next round is `round + 1`, started with a fresh child; a round that was running
 * when the host died is run again.
 */
export interface RalphResumePoint {
  /** Rounds finished with an accepted report (0: none; the run starts again at round 1). */
  round: number;
  /** The last accepted report, or null when no round finished. */
  handoff: RalphReport | null;
  /** Children started before, the interrupted round's included: the envelope counts every child of the run. */
  agentsStarted: number;
  /**
   * What the run's agents said they used before (the recorded total), so the cost budget and every total go on from
   * it; absent or null: nothing was said. The interrupted round's agent is not in it: its word was never heard.
   */
  usage?: RalphUsage | null;
  /**
   * Rounds whose spend is unknown, so not in `usage`: each was going on when a host of the run stopped (the round
   * being run again, and any a resume before it ran again). Absent: none.
   */
  uncountedRounds?: readonly number[];
  /**
   * The run stopped while an evaluator was checking the completion `round` reported (the handoff): the run picks up
   * by evaluating it again, with a fresh evaluator. Absent: it picks up with round `round + 1`.
   */
  evaluating?: boolean;
  /**
   * The run stopped while it waited for a person's answer to the blocker `round` reported (the handoff): it picks up
   * by waiting again (`--ask`). Absent: it picks up with round `round + 1`.
   */
  awaitingAnswer?: boolean;
}

/** Every guard rail off. */
export const NO_GUARD_RAILS: GuardRails = Object.freeze({
  roundTimeoutMs: null,
  maxWallTimeMs: null,
  verify: null,
  maxIdleRounds: null,
});

/** Why a round's child is being stopped by a guard rail. */
export type RoundStopReason = 'round-timeout' | 'time-limit';

/** What `awaitVerdict` resolves with: the evaluator's raw output, its usage, and what it changed in the workspace. */
export interface EvaluationOutcome {
  output: unknown;
  usage: RalphUsage | null;
  /** The workspace's files the evaluator added, removed or changed, worded (`a.ts (changed)`); [] when none. */
  changedFiles: string[];
}

/** What `runRound` resolves with: the child's raw structured output, and what it said it used (null: nothing). */
export interface RoundOutcome {
  output: unknown;
  usage: RalphUsage | null;
  /** Set when the round ended on a usage or rate limit instead of a report. */
  limit?: RoundLimit;
}

/** A round that ended on a usage or rate limit: what the agent said, and how long until the limit resets. */
export interface RoundLimit {
  /** The child failure's detail: the agent's words and when the limit resets. */
  detail: string;
  /** Time until the reset, from when the limit was recognised (ms); null when the agent gave none. */
  retryInMs: number | null;
}

/** The margin added to a limit's reset time before the round runs again. */
/** What a run was started with: fixed for the whole run, never assigned. */
export interface RalphCallContext {
  objectiveInput: unknown;
  requestedMaxRounds: unknown;
  agent: AgentRef | null;
  provider: ProviderSnapshot;
  deploymentMaxRounds: number;
  maxHandoffChars: number;
  terminationGraceMs: number;
  maxTotalAgents: number;
  /** The resume point of a resumed run; null for a new run. */
  resumeFrom: RalphResumePoint | null;
  guardRails: GuardRails;
  /** The evaluator's provider; absent when the run has none (so a run without one has the reference's context). */
  evaluator?: ProviderSnapshot;
  /** The run's sandbox; absent when it has none. */
  sandbox?: RalphSandbox;
}

/** What a run with an evaluator knows of its evaluations (one context key: see RalphContext). */
export interface EvaluationContext {
  /** Evaluators started so far. */
  started: number;
  /** The review of the running evaluation's verdict, once it came (null until then). */
  review: VerdictReview | null;
  /** What the running evaluation changed in the workspace, once it ended ([] when nothing). */
  changedFiles: string[];
  /** The last verdict given, and the round it judged (null until one was). */
  last: { round: number; verdict: EvaluatorVerdict } | null;
}

/**
 * The run's context: serializable, no functions, promises or controllers. What never changes is nested in `call`,
 * so the top level stays at most 19 keys: XState builds each new context with `Object.assign({}, context, update)`,
 * and V8 turns an object given more properties that way into a slow dictionary (≈ 5 µs a copy at 27 keys against
 * 0.2 µs at 12, measured alone; see BENCHMARKS.md, target 5).
 */
export interface RalphContext {
  runId: string;
  /** The call as the run was started with it. */
  call: RalphCallContext;
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
  /** The verdict on this round's report, once it came (null until then). */
  review: ReportReview | null;
  outcome: RalphOutput | null;
  /** The wall-clock budget is spent: no round may start. */
  outOfTime: boolean;
  /** Why the running round's child is being stopped (null unless it is). */
  stopReason: RoundStopReason | null;
  /** The workspace fingerprint after the last round (or before round 1); null until one was taken. */
  fingerprint: string | null;
  /** Consecutive rounds, up to now, that left the workspace unchanged. */
  idleRounds: number;
  /** What this round's agent said it used, once its report came (null until then, or when it said nothing). */
  roundUsage: RalphUsage | null;
  /** What the run's rounds said they used, summed (null while none said anything). */
  usage: RalphUsage | null;
  /** Waits for a usage limit since the last accepted report (the backoff of a limit with no reset time doubles). */
  limitWaits: number;
  /** How long the current wait for a usage limit lasts (ms); null when the run is not waiting. */
  limitWaitMs: number | null;
  /** The evaluations of a run with an evaluator; absent without one. */
  evaluation?: EvaluationContext;
}

/** How a run ended: the envelope, or the failure, refusal or cancellation. */
export type RalphOutput = { ok: true; envelope: RalphEnvelope } | { ok: false; failure: RalphFailure };

/** Events a host sends to a run. */
export type RalphEvent = { type: 'CANCEL' };

/** What the round's one actor (`runRound`) tells its run once the provider has started the child. */
export interface ChildStarted {
  childId: string;
}

/** The event `runRound` sends its run when the round's child has started (between its start and its report). */
export type ChildStartedEvent = { type: 'CHILD_STARTED' } & ChildStarted;

/** Every event the run machine takes from outside its own timers: the host's, and the round actor's. */
export type RalphMachineEvent = RalphEvent | ChildStartedEvent;

/** What a host may read off a run's snapshot with `snapshot.hasTag(tag)` (each is described on ralphMachine). */
export type RalphTag = 'childRunning' | 'settled' | 'succeeded' | 'failure';

/** Identifies one round's child to the actors that wait on it. */
export interface RoundRef {
  runId: string;
  round: number;
}

/** What the verify actor runs: the run's verify command, in the workspace. */
export interface VerifyRequest {
  runId: string;
  round: number;
  cwd: string;
  verify: VerifySpec;
  terminationGraceMs: number;
  /** The run's sandbox, which the command runs in; absent: none. */
  sandbox?: RalphSandbox;
}

/** What the fingerprint actor reads: the workspace. */
export interface FingerprintRequest {
  runId: string;
  round: number;
  cwd: string;
}
