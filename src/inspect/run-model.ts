import type { RalphFailure } from '../contract/errors.js';
import type { EvaluatorVerdict } from '../contract/evaluator-verdict.js';
import type { RalphEnvelope, RalphReport } from '../contract/types.js';
import type { RalphUsage } from '../contract/usage.js';

/**
 * What a person wants to know about one run, rebuilt from its recorded (or live) inspection events: the facts, the
 * states it went through, one entry per round, and how it ended. The HTML report and the live inspector render it;
 * plain data, so it crosses to a browser as JSON. Times are milliseconds since the run started.
 */
export interface RunModel {
  /** The recording's format version, package version and machine hash (from its header). */
  recording: { formatVersion: number; packageVersion: string; machineHash: string };
  /** When the run started, as an ISO 8601 time. */
  startedAt: string;
  runId: string;
  /** The accepted objective, or what the call sent when it was refused (null when it sent none). */
  objective: string | null;
  /** The resolved round cap (null while validating, or when the call was refused). */
  maxRounds: number | null;
  agentsStarted: number;
  /** Every state the run entered, in order, with when (the path a diagram highlights). */
  path: { state: string; at: number }[];
  /** One entry per round started. */
  rounds: RunModelRound[];
  /** What the rounds' agents said they used, summed; null when none said (and in recordings made before usage). */
  usage: RalphUsage | null;
  /** Null while the run goes; its ending once it settled. */
  ending: RunEnding | null;
}

/** One round as the run saw it. */
export interface RunModelRound {
  round: number;
  /** The child's id once the provider started it. */
  childId: string | null;
  startedAt: number;
  /** When its report was reviewed, it failed or it was cancelled; null while it runs. */
  endedAt: number | null;
  /** The accepted report (null until then, and for a round whose report or child failed). */
  report: RalphReport | null;
  /** What its agent said it used; null when it said nothing, or has not reported yet. */
  usage: RalphUsage | null;
  /**
   * What became of the round; `rejected`: it reported complete and the independent evaluator rejected that, so the
   * next round was started with the findings.
   */
  outcome:
    | 'running'
    | 'continue'
    | 'complete'
    | 'rejected'
    | 'blocked'
    | 'budget-limited'
    | 'failed'
    | 'cancelled';
  /** The independent evaluator's check of the completion the round reported; absent when none was started. */
  evaluation?: RunModelEvaluation;
  /** The question its blocker put to a person (`--ask`); absent when the run did not wait for an answer. */
  question?: RunModelQuestion;
}

/** A blocked round's question to a person (`--ask`) and what became of it. Its texts are untrusted: shown escaped. */
export interface RunModelQuestion {
  /** The blocker, word for word. */
  question: string;
  askedAt: number;
  /** How long the run was to wait for the answer (ms). */
  waitMs: number;
  /** When the answer came or the wait ended; null while it waits. */
  endedAt: number | null;
  /**
   * What became of it: `waiting`; `answered` (the next round started with the answer); `given-up` (a person chose not
   * to answer); `timed-out`, `time-limit` (the run's time limit ran out) and `unavailable` (no source could ask) ended
   * the run blocked; `cancelled`, the run was cancelled or its host stopped while it waited.
   */
  outcome: 'waiting' | 'answered' | 'given-up' | 'timed-out' | 'time-limit' | 'unavailable' | 'cancelled';
  /** The person's answer, once given (null otherwise). */
  answer: string | null;
  /** Who answered or gave up, as the host named them (`terminal`, `live page`, …); null when unsaid. */
  by: string | null;
  /** Why no source could ask (`unavailable`). */
  detail?: string;
}

/** One evaluation, as the run saw it: the evaluator started on a round's reported completion, and what it said. */
export interface RunModelEvaluation {
  /** The evaluator provider's name (`command-evaluator`, `claude-evaluator`, …). */
  evaluator: string;
  /** The evaluator child's id once its provider started it. */
  childId: string | null;
  startedAt: number;
  /** When its output came, it failed or it was stopped; null while it checks. */
  endedAt: number | null;
  /** Its verdict, once one was given that fits the rules (null until then, and when it gave none). */
  verdict: EvaluatorVerdict | null;
  /** The workspace's files it added, removed or changed (worded: `a.ts (changed)`); [] when none. */
  changedFiles: string[];
  /** What the evaluator said it used; null when it said nothing. */
  usage: RalphUsage | null;
  /**
   * What became of it: `accept` and `reject` are its verdict; `failed`, the workflow failed in it (it changed the
   * workspace, its verdict was missing, malformed or oversized, or it could not run: the run's error says which);
   * `stopped`, the time limit or the round timeout stopped it; `cancelled`, the run was cancelled while it checked.
   */
  outcome: 'running' | 'accept' | 'reject' | 'failed' | 'stopped' | 'cancelled';
}

/** How a run ended: its final state, and the envelope or the failure (refusals and cancellation included). */
export interface RunEnding {
  /**
   * The final state's key: complete, blocked, budgetLimited, failed, rejected or cancelled; `cancelling` when the
   * host forced its exit before the run settled (ralph run's second Ctrl-C, the recording's forced-exit line).
   */
  finalState: string;
  at: number;
  result: { ok: true; envelope: RalphEnvelope } | { ok: false; failure: RalphFailure };
}
