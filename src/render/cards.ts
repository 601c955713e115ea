import { objectiveOf } from '../contract/call.js';
import type { RalphEnvelope } from '../contract/types.js';
import { renderResultText } from './result-text.js';

/** The card a host shows while the call runs. */
export interface PendingCard {
  title: 'ralph';
  rawInput: string;
}

/** The card a host shows once the call settled. */
export interface ResultCard {
  title: 'ralph';
  text: string;
}

/** The pending card: a generic card titled ralph whose raw input is the immutable objective. */
export function renderPendingCard(args: unknown): PendingCard {
  const objective = objectiveOf(args);
  return { title: 'ralph', rawInput: typeof objective === 'string' ? objective : '' };
}

/** The result card: the generic card with the native result text. Depends only on its arguments. */
export function renderResultCard(
  _args: unknown,
  envelope: RalphEnvelope,
  maxResultChars?: number,
): ResultCard {
  return { title: 'ralph', text: renderResultText(envelope, maxResultChars) };
}
