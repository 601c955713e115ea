import type { RalphQuestionEnding } from './answers.js';
import { formatDuration } from './duration.js';

/**
 * The texts of a run that asks a person (`--ask`). The reference has none: a blocked run ends there. They follow
 * its wording patterns and are spelled out here only.
 */

/** The line a blocked run's result text adds when it waited for an answer that did not come. */
export function unansweredLine(ending: RalphQuestionEnding): string {
  switch (ending.reason) {
    case 'timed-out':
      return `Nobody answered round ${ending.round}'s blocker within ${formatDuration(ending.waitMs)}; the run ended blocked.`;
    case 'given-up':
      return `A person chose not to answer round ${ending.round}'s blocker; the run ended blocked.`;
    case 'time-limit':
      return `The run's time limit ran out while it waited for an answer to round ${ending.round}'s blocker; the run ended blocked.`;
    case 'unavailable':
      return `Round ${ending.round}'s blocker could not be put to a person (${ending.detail ?? 'no answer source'}); the run ended blocked.`;
  }
}

/** How a waiting question is put to a person at a terminal or in a notification. */
export function questionText(round: number, question: string): string {
  return `Round ${round} is blocked and asks: ${question}`;
}

/** How to answer a waiting run, for a person who reads a notification or a terminal line. */
export function howToAnswer(runId: string): string {
  return `Answer with: ralph answer ${runId} "your answer"  (or --give-up to end it blocked)`;
}
