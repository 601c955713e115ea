import type { RalphSandbox } from './sandbox.js';
import type { RalphUsage } from './usage.js';

/** A reference to an agent: its id and the folder it works in. */
export interface AgentRef {
  id: string;
  cwd: string;
}

/** The three states a round report may carry. */
export type ReportStatus = 'continue' | 'complete' | 'blocked';

/** A validated round report: the only state that crosses from one round to the next. */
export interface RalphReport {
  status: ReportStatus;
  summary: string;
  evidence: string[];
  nextSteps: string[];
  blocker: string | null;
}

/** What a provider needs to start one fresh child for one round. */
export interface ChildRequest {
  runId: string;
  round: number;
  maxRounds: number;
  objective: string;
  /** The previous round's validated report, or null in round 1. */
  handoff: RalphReport | null;
  /** The fixed standalone round prompt. */
  prompt: string;
  /** JSON Schema (draft-07) of the report; every field required. */
  outputSchema: Record<string, unknown>;
  /** The calling agent's folder: the shared workspace. */
  cwd: string;
  /** The calling agent: every child's parent. */
  parent: AgentRef;
  /** The run's handoff cap (characters of the report's JSON), for a child that checks its report before it ends. */
  maxHandoffChars?: number;
  /**
   * `evaluator` for an independent evaluator's child: `handoff` is the report it judges, `outputSchema` the verdict's,
   * and it must not change the workspace. Absent for a round's worker.
   */
  role?: 'evaluator';
}

/** Options the machine hands to `SubagentProvider.start`. */
export interface ChildStartOptions {
  /** Aborted when the run is cancelled; the child must stop. */
  signal: AbortSignal;
  /** How long a stopping child may take before it is killed (ms). */
  terminationGraceMs: number;
  /**
   * Environment a host adds for this child only (a traced run's `TRACEPARENT`, so an agent that traces joins the
   * run's trace); a provider that starts a process puts it under its own variables. Absent: nothing is added.
   */
  env?: Readonly<Record<string, string>>;
  /**
   * The run's sandbox: a provider that declares `sandbox` starts its child inside it (an evaluator's with the
   * workspace read-only). Absent: no sandbox.
   */
  sandbox?: RalphSandbox;
}

/** A started child. `report` resolves with the raw structured output, rejects on an ordinary child failure,
 * and after an abort settles only once the child has stopped. */
export interface ChildRun {
  id: string;
  report: Promise<unknown>;
  /**
   * What the child said it used, read once `report` settled, resolved or rejected: what a failed round's agent said
   * it spent counts too (optional: a provider whose agent says nothing about it leaves it out, or returns null).
   */
  usage?: () => RalphUsage | null;
}

/** What a provider declares about the children it starts. */
export interface ProviderCapabilities {
  structuredOutput: boolean;
  inheritsParentContext: boolean;
  /** Its children say what each round cost (`costUsd`), so a cost budget can hold; absent means no. */
  reportsCost?: boolean;
  /** It starts its children in the run's sandbox when `ChildStartOptions.sandbox` asks; absent means it cannot. */
  sandbox?: boolean;
}

/** Something that can start fresh child agents. `start` rejecting is a provider-start failure. */
export interface SubagentProvider {
  name: string;
  capabilities: ProviderCapabilities;
  start(request: ChildRequest, options: ChildStartOptions): Promise<ChildRun>;
  /**
   * Optional: throws when no round could start its child in `cwd` (its program is missing or cannot be run), so a
   * host can refuse before round 1 instead of failing it. Starts nothing.
   */
  preflight?(cwd: string): void;
}

/** The ways a run can settle successfully. */
export type RalphResultStatus = 'complete' | 'blocked' | 'budget-limited';

/** The canonical value of a settled run. */
export interface RalphEnvelope {
  runId: string;
  agentsStarted: number;
  result: {
    status: RalphResultStatus;
    /** Rounds started. */
    rounds: number;
    report: RalphReport;
    /** Set only when a guard rail, not the round cap, ended the run budget-limited. */
    limit?: RalphLimit;
    /** Set only when a verify command accepted the completion: its argv. */
    verifiedBy?: string[];
    /** Set only when an independent evaluator gave a verdict in the run: the last one. */
    evaluation?: RalphEvaluation;
    /** Set only on a blocked run that waited for a person's answer that did not come (`--ask`): why it ended. */
    question?: RalphQuestionEnding;
  };
}

/** The last verdict of a run's independent evaluator, as the envelope carries it. */
export interface RalphEvaluation {
  /** The evaluator provider's name. */
  evaluator: string;
  /** The round whose reported completion it judged. */
  round: number;
  verdict: 'accept' | 'reject';
  findings: string[];
  evidence: string[];
  /** Evaluators started in the run (one a reported completion; `agentsStarted` counts the rounds' workers only). */
  evaluatorsStarted: number;
}

/** Progress a run reports while it goes. */
export type RalphProgressEvent =
  | { type: 'round-started'; runId: string; round: number; maxRounds: number }
  | { type: 'child-started'; runId: string; round: number; maxRounds: number; childId: string }
  | {
      type: 'report-accepted';
      runId: string;
      round: number;
      maxRounds: number;
      report: RalphReport;
      /** What the round's agent said it used; only when it said. */
      usage?: RalphUsage;
      /** What the run's rounds used so far, this one included; only when any of them said. */
      totalUsage?: RalphUsage;
    }
  | GuardRailProgressEvent;

/** A verify command as the deployment configures it: run in the workspace when a round reports complete. */
export interface VerifySpec {
  /** The command and its arguments, run without a shell. */
  argv: string[];
  /** How long it may run before it is stopped and counted as failed (ms). */
  timeoutMs: number;
  /** How much of the end of its output is kept for the next round's handoff. */
  maxOutputChars: number;
}

/** How a run of the verify command ended. */
export interface VerifyOutcome {
  /** The exit code; null when a signal ended it. */
  exitCode: number | null;
  /** The signal that ended it (e.g. SIGTERM after a timeout), else null. */
  signal: string | null;
  /** True when the timeout stopped it. */
  timedOut: boolean;
  /** From the start to the moment its process group was gone, in whole milliseconds. */
  durationMs: number;
  /**
   * At most the spec's maxOutputChars characters of what it printed, as text: the end of stdout, then the end of
   * stderr, each under a `[stdout]` / `[stderr]` line when both said something. Not interleaved: the process-group
   * runner keeps the two streams apart. When both say more than the cap allows, each keeps the end of its half.
   */
  outputTail: string;
}

/** The opt-in guard rails of a run, each null when it is off (then the run is exactly the reference's). */
export interface GuardRails {
  /** A round's child that has not reported within this is stopped and the run fails (ms). */
  roundTimeoutMs: number | null;
  /** The whole run's budget: no round starts once it is spent, and a running one is stopped (ms). */
  maxWallTimeMs: number | null;
  /** A completion is accepted only once this command exits 0 in the workspace. */
  verify: VerifySpec | null;
  /** This many consecutive `continue` rounds that leave the workspace unchanged end the run budget-limited. */
  maxIdleRounds: number | null;
  /** The cost budget (USD): no round starts once the rounds' reported cost has reached it (absent: off). */
  maxCostUsd?: number | null;
  /** A round that hit a usage limit waits for its reset and runs again (absent or false: it fails the run). */
  waitOnLimits?: boolean;
  /** A blocked round waits this long for a person's answer before the run ends blocked (ms; absent: it ends at once). */
  waitForAnswersMs?: number;
  /**
   * What the run spent of `maxWallTimeMs` before this process took it up (ms): a fleet run taken over by another
   * worker, whose budget runs from the run's start. Absent: none.
   */
  spentWallTimeMs?: number;
}

/** Which guard rail ended a budget-limited run; absent from an envelope when it was the round cap. */
export type RalphLimit =
  | {
      kind: 'time';
      maxWallTimeMs: number;
      /**
       * The round that was running (or waiting out a usage limit) when the time ran out, stopped before it reported:
       * `rounds` counts it, and the report is the round before's. Absent when the time ran out between rounds.
       */
      unfinishedRound?: number;
      /**
       * The round whose reported completion an evaluator was checking when the time ran out: the completion was not
       * accepted, and the final report is that round's. Absent unless an evaluator was stopped.
       */
      unevaluatedRound?: number;
    }
  | { kind: 'idle'; maxIdleRounds: number }
  /**
   * The cost budget, and what the rounds' agents said they cost in all when it stopped the run (exact to the
   * micro-dollar); `uncountedRounds`, only in a resumed run, names the rounds whose spend is unknown and not in it.
   */
  | { kind: 'cost'; maxCostUsd: number; spentUsd: number; uncountedRounds?: number[] };

/** Progress only a run with a guard rail set reports. */
export type GuardRailProgressEvent =
  | { type: 'round-timed-out'; runId: string; round: number; maxRounds: number; roundTimeoutMs: number }
  | { type: 'time-limit-reached'; runId: string; round: number; maxRounds: number; maxWallTimeMs: number }
  | { type: 'verify-started'; runId: string; round: number; maxRounds: number; command: string[] }
  | {
      type: 'verify-finished';
      runId: string;
      round: number;
      maxRounds: number;
      command: string[];
      passed: boolean;
      exitCode: number | null;
      signal: string | null;
      timedOut: boolean;
      durationMs: number;
    }
  | {
      type: 'limit-wait-started';
      runId: string;
      round: number;
      maxRounds: number;
      /** How long the run waits before it runs the round again (ms). */
      waitMs: number;
      /** What the agent said of the limit, and when it resets. */
      detail: string;
    }
  | { type: 'evaluator-started'; runId: string; round: number; maxRounds: number; evaluator: string }
  | {
      type: 'evaluator-finished';
      runId: string;
      round: number;
      maxRounds: number;
      evaluator: string;
      verdict: 'accept' | 'reject';
      findings: string[];
      evidence: string[];
    }
  | {
      type: 'workspace-unchanged';
      runId: string;
      round: number;
      maxRounds: number;
      idleRounds: number;
      maxIdleRounds: number;
    }
  /** A blocked round's question, put to a person (`--ask`): the blocker, and how long the run waits. */
  | {
      type: 'question-asked';
      runId: string;
      round: number;
      maxRounds: number;
      question: string;
      waitMs: number;
    }
  /** A person answered: the next round starts with the blocked report and the answer. */
  | {
      type: 'question-answered';
      runId: string;
      round: number;
      maxRounds: number;
      answer: string;
      by?: string;
    }
  /** The run stops waiting without an answer and ends blocked. */
  | (RalphQuestionEnding & { type: 'question-unanswered'; runId: string; maxRounds: number });

/** Why a run that waited for an answer ended blocked without one. */
export type UnansweredReason = 'timed-out' | 'given-up' | 'time-limit' | 'unavailable';

/** What a blocked envelope carries when its run waited for an answer that did not come. */
export interface RalphQuestionEnding {
  /** The round whose blocker was the question. */
  round: number;
  reason: UnansweredReason;
  /** How long the run was to wait for the answer (ms). */
  waitMs: number;
  /** Set when the answer source failed (`unavailable`): why. */
  detail?: string;
}
