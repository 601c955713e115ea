import { formatDuration } from './duration.js';
import { roundCount } from './messages.js';
import type { RalphProgressEvent, VerifyOutcome } from './types.js';
import { costText } from './usage.js';

/**
 * The texts of the opt-in guard rails. The reference has none of them, so they follow its wording patterns
 * (`Ralph reached its <n> limit; …`, `Ralph workflow failed: …`) and are spelled out here only.
 */

/** A command as a person would type it: each argument that needs it quoted. */
export function commandText(argv: readonly string[]): string {
  return argv.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : JSON.stringify(arg))).join(' ');
}

/** The budget-limited label of a run whose wall-clock budget ran out. */
export function timeLimitLabel(maxWallTimeMs: number): string {
  return `Ralph reached its ${formatDuration(maxWallTimeMs)} time limit; the worker reported work remaining.`;
}

/**
 * The line after the time-limit label when the time ran out in a round (never round 1: a run with no report fails):
 * that round was stopped before it reported, and the final report is the round before's.
 */
export function unfinishedRoundLine(round: number): string {
  return `Round ${round} was stopped when the time ran out, before it reported; the final report is round ${round - 1}'s.`;
}

/** The budget-limited label of a run stopped after `maxIdleRounds` rounds that changed nothing. */
export function idleLimitLabel(maxIdleRounds: number): string {
  const idle = maxIdleRounds === 1 ? '1 idle round' : `${maxIdleRounds} idle rounds`;
  const last = maxIdleRounds === 1 ? 'the last round' : `the last ${maxIdleRounds} rounds`;
  return `Ralph reached its ${idle} limit; the worker reported work remaining, but the workspace did not change in ${last}.`;
}

/** The budget-limited label of a run whose agents' reported cost reached its cost budget. */
export function costLimitLabel(maxCostUsd: number, spentUsd: number): string {
  return `Ralph reached its ${costText(maxCostUsd)} cost limit (${costText(spentUsd)} spent); the worker reported work remaining.`;
}

/**
 * The line after a cost limit's label in a resumed run: the rounds whose spend is not in the figure, because each
 * was going on when a host of the run stopped and what its agent spent was never heard.
 */
export function uncountedSpendNote(rounds: readonly number[]): string {
  const which =
    rounds.length === 1
      ? `round ${rounds[0]}`
      : `rounds ${rounds.slice(0, -1).join(', ')} and ${rounds.at(-1)}`;
  const was = rounds.length === 1 ? 'was' : 'were';
  return `Not counted: what ${which} spent before the run's host stopped; it is unknown (the round${rounds.length === 1 ? '' : 's'} ${was} run again).`;
}

/** The refusal of a cost budget whose provider does not say what its rounds cost: the budget could not hold. */
export function costBudgetNeedsCostReports(provider: string, maxCostUsd: number): string {
  return `Ralph cannot hold the ${costText(maxCostUsd)} cost limit: subagent provider "${provider}" does not report what its rounds cost, so the budget would never stop the run. Use a provider that reports cost (claude, or a command agent whose provider is configured with reportsCost and that writes costUsd to RALPH_USAGE_FILE), or drop the cost limit.`;
}

/** The complete label of a run whose completion a verify command accepted (in place of the worker-report caveat). */
export function verifiedCompleteLabel(rounds: number, argv: readonly string[]): string {
  return `Ralph complete: the worker reported the objective complete after ${roundCount(rounds)}, and the verify command \`${commandText(argv)}\` confirmed it (exit 0).`;
}

/** The detail of a round whose child was stopped at the round timeout. */
export function roundTimedOut(round: number, roundTimeoutMs: number): string {
  return `round ${round} timed out: its child did not report within the round timeout of ${formatDuration(roundTimeoutMs)} and was stopped`;
}

/** The detail of a run whose time limit ran out during a round, before any round had reported. */
export function timeRanOutInRound(round: number, maxWallTimeMs: number): string {
  return `the ${formatDuration(maxWallTimeMs)} time limit ran out during round ${round}, before any round had reported; its child was stopped`;
}

/** The workflow failure of a run whose time limit ran out while its round waited for a usage limit, before any report. */
export function timeRanOutWaitingForLimit(round: number, maxWallTimeMs: number): string {
  return `the ${formatDuration(maxWallTimeMs)} time limit ran out while round ${round} waited for a usage limit to reset, before any round had reported`;
}

/** The detail of a run whose time limit ran out before its first round could start. */
export function timeRanOutBeforeRounds(maxWallTimeMs: number): string {
  return `the ${formatDuration(maxWallTimeMs)} time limit ran out before round 1 started`;
}

/** How a verify command ended, in a few words: `exited with status 1 after 2s`. */
export function verifyEnding(outcome: VerifyOutcome, timeoutMs: number): string {
  const after = `after ${formatDuration(outcome.durationMs)}`;
  if (outcome.timedOut) return `timed out after ${formatDuration(timeoutMs)} and was stopped`;
  if (outcome.exitCode !== null) return `exited with status ${outcome.exitCode} ${after}`;
  return `was ended by ${outcome.signal ?? 'a signal'} ${after}`;
}

/** The next step a failed verification hands the next round; the output tail follows it. */
export function verifyFailedStep(argv: readonly string[], ending: string): string {
  return `The previous round reported the objective complete, but the completion was not accepted: the verify command \`${commandText(argv)}\` ${ending}. Make it pass, then report complete again.`;
}

/** Introduces the end of a failed verify command's output in the handoff. */
export const VERIFY_OUTPUT_TAIL = 'The end of its output:';

/** The workflow failure of a verify command that could not be started. */
export function verifyCouldNotStart(round: number, argv: readonly string[], reason: string): string {
  return `round ${round} reported complete, but the verify command \`${commandText(argv)}\` could not start: ${reason}`;
}

/** The workflow failure of a workspace fingerprint that could not be taken. */
export function fingerprintFailed(round: number, reason: string): string {
  const when = round === 0 ? 'before round 1' : `after round ${round}`;
  return `the workspace fingerprint ${when} could not be taken: ${reason}`;
}

/**
 * The progress line of a guard-rail event, as the CLI and the MCP progress messages show it (without the round
 * prefix); null for the reference's own events, which each host words itself.
 */
export function guardRailProgressText(event: RalphProgressEvent): string | null {
  switch (event.type) {
    case 'round-timed-out':
      return `timed out after ${formatDuration(event.roundTimeoutMs)} (--round-timeout); stopping its agent`;
    case 'time-limit-reached':
      return `the ${formatDuration(event.maxWallTimeMs)} time limit (--max-time) ran out; no round starts after it`;
    case 'verify-started':
      return `verifying the completion with \`${commandText(event.command)}\``;
    case 'verify-finished': {
      const how = event.timedOut
        ? 'timed out'
        : event.exitCode !== null
          ? `exited ${event.exitCode}`
          : `ended by ${event.signal ?? 'a signal'}`;
      const verdict = event.passed ? 'completion verified' : 'completion not accepted';
      return `verify \`${commandText(event.command)}\` ${how} after ${formatDuration(event.durationMs)}: ${verdict}`;
    }
    case 'limit-wait-started':
      return `hit a usage limit; waiting ${formatDuration(event.waitMs)} for it to reset (--wait-on-limits), then running the round again with a fresh agent`;
    case 'evaluator-started':
      return `evaluator ${event.evaluator} checking the reported completion in the workspace`;
    case 'evaluator-finished': {
      const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
      return event.verdict === 'accept'
        ? `evaluator accepted: ${event.evidence.length === 1 ? '1 piece' : `${event.evidence.length} pieces`} of evidence`
        : `evaluator rejected: ${count(event.findings.length, 'finding')}`;
    }
    case 'workspace-unchanged':
      return `left the workspace unchanged (${event.idleRounds} of ${event.maxIdleRounds} idle rounds allowed in a row)`;
    default:
      return null;
  }
}
