import type { RalphReport } from './types.js';

/** What a round prompt is built from. */
export interface RoundPromptInput {
  objective: string;
  round: number;
  maxRounds: number;
  handoff: RalphReport | null;
}

/**
 * The fixed standalone round prompt. It carries the immutable objective, the round and its cap, the instruction
 * that the shared workspace is the authority, and the previous handoff: nothing else reaches a fresh child.
 */
export function renderRoundPrompt({ objective, round, maxRounds, handoff }: RoundPromptInput): string {
  const previous =
    handoff === null
      ? 'None: this is the first round.'
      : `The previous round reported:\n${JSON.stringify(handoff, null, 2)}`;
  return [
    `You are a fresh agent running round ${round} of at most ${maxRounds} in a Ralph loop.`,
    '',
    'Objective (immutable):',
    objective,
    '',
    'The shared workspace, your current working directory, is the authority and the only durable memory between',
    'rounds. No conversation and no earlier agent session reaches you. Inspect the workspace to learn what earlier',
    'rounds did instead of assuming their narration is still current, and leave your own progress in it.',
    '',
    'Previous handoff:',
    previous,
    '',
    'Do one round of focused work toward the objective, then end the round with a structured report:',
    '- status "continue" when work remains: list the next steps, blocker null;',
    '- status "complete" when the objective is done: list the evidence (checks you ran and their results),',
    '  no next steps, blocker null;',
    '- status "blocked" when a concrete blocker stops the work: name it in blocker.',
    'The summary must say what this round did. Your report is the only thing the next round will read.',
  ].join('\n');
}
