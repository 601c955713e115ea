import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { renderRoundPrompt } from '../../src/contract/prompt.js';
import { nonBlankText, validReport } from './arbitraries.js';

/** A round and its cap: 1 ≤ round ≤ maxRounds ≤ 256. */
const roundAndCap = fc
  .integer({ min: 1, max: 256 })
  .chain((maxRounds) => fc.tuple(fc.integer({ min: 1, max: maxRounds }), fc.constant(maxRounds)));

const promptInput = fc.record({
  objective: nonBlankText,
  roundAndCap,
  handoff: fc.option(validReport, { freq: 3 }),
});

describe('the round prompt', () => {
  test('always carries the objective, the round and the cap', () => {
    fc.assert(
      fc.property(promptInput, ({ objective, roundAndCap: [round, maxRounds], handoff }) => {
        const prompt = renderRoundPrompt({ objective, round, maxRounds, handoff });
        expect(prompt).toContain(objective);
        const [first] = prompt.split('\n');
        expect(first).toContain(`round ${round} `);
        expect(first).toContain(`at most ${maxRounds} `);
      }),
      { numRuns: 1000 },
    );
  });

  test('carries the previous handoff whole, or says there is none', () => {
    fc.assert(
      fc.property(promptInput, ({ objective, roundAndCap: [round, maxRounds], handoff }) => {
        const prompt = renderRoundPrompt({ objective, round, maxRounds, handoff });
        if (handoff === null) expect(prompt).toContain('None: this is the first round.');
        else {
          expect(prompt).toContain(JSON.stringify(handoff, null, 2));
          expect(prompt).not.toContain('None: this is the first round.');
        }
      }),
      { numRuns: 500 },
    );
  });

  test('always says the shared workspace is the authority, and is the same for the same inputs', () => {
    fc.assert(
      fc.property(promptInput, ({ objective, roundAndCap: [round, maxRounds], handoff }) => {
        const prompt = renderRoundPrompt({ objective, round, maxRounds, handoff });
        expect(prompt).toMatch(/shared workspace[\s\S]*is the authority/);
        expect(renderRoundPrompt({ objective, round, maxRounds, handoff: structuredClone(handoff) })).toBe(
          prompt,
        );
      }),
      { numRuns: 300 },
    );
  });

  test('reads, for the first round, exactly as the fixed prompt is written', () => {
    expect(
      renderRoundPrompt({ objective: 'Port the parser to Rust', round: 1, maxRounds: 3, handoff: null }),
    ).toBe(
      [
        'You are a fresh agent running round 1 of at most 3 in a Ralph loop.',
        '',
        'Objective (immutable):',
        'Port the parser to Rust',
        '',
        'The shared workspace, your current working directory, is the authority and the only durable memory between',
        'rounds. No conversation and no earlier agent session reaches you. Inspect the workspace to learn what earlier',
        'rounds did instead of assuming their narration is still current, and leave your own progress in it.',
        '',
        'Previous handoff:',
        'None: this is the first round.',
        '',
        'Do one round of focused work toward the objective, then end the round with a structured report:',
        '- status "continue" when work remains: list the next steps, blocker null;',
        '- status "complete" when the objective is done: list the evidence (checks you ran and their results),',
        '  no next steps, blocker null;',
        '- status "blocked" when a concrete blocker stops the work: name it in blocker.',
        'The summary must say what this round did. Your report is the only thing the next round will read.',
      ].join('\n'),
    );
  });

  test("introduces a previous handoff as the previous round's report", () => {
    const handoff = {
      status: 'continue' as const,
      summary: 's',
      evidence: [],
      nextSteps: ['n'],
      blocker: null,
    };
    const prompt = renderRoundPrompt({ objective: 'o', round: 2, maxRounds: 3, handoff });
    expect(prompt).toContain(
      `Previous handoff:\nThe previous round reported:\n${JSON.stringify(handoff, null, 2)}\n`,
    );
  });
});
