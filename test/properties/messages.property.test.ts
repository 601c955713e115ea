import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import * as messages from '../../src/contract/messages.js';
import { validReport } from './arbitraries.js';

const text = fc.string({ maxLength: 40 });
const count = fc.integer({ min: 0, max: 1000 });

describe('every message text', () => {
  test('starts with "Ralph " and carries its arguments verbatim', () => {
    fc.assert(
      fc.property(count, count, text, text, (a, b, name, detail) => {
        const cases: [string, string[]][] = [
          [messages.maxRoundsExceedsCeiling(a, b), [`maxRounds ${a} `, `ceiling ${b}`]],
          [messages.providerNotRegistered(name), [`"${name}"`]],
          [messages.providerLacksStructuredOutput(name), [`"${name}"`]],
          [messages.providerInheritsParentContext(name), [`"${name}"`]],
          [messages.workflowFailed(detail), [`: ${detail}`]],
          [messages.roundChildFailed(a), [`round ${a} `]],
          [messages.budgetLimitedLabel(a), [`${a} round`]],
          [messages.ralphDepthLimitReached(a, b), [`depth ${a} `, `RALPH_DEPTH=${a}`, `limit is ${b}`]],
          [messages.agentCommandInvalid(name, detail), [JSON.stringify(name), `: ${detail}`]],
        ];
        for (const [message, parts] of cases) {
          expect(message.startsWith('Ralph ')).toBe(true);
          for (const part of parts) expect(message).toContain(part);
        }
      }),
    );
  });

  test('counts rounds the way the reference does: 1 round, N rounds', () => {
    fc.assert(
      fc.property(count, (n) => {
        expect(messages.roundCount(n)).toBe(n === 1 ? '1 round' : `${n} rounds`);
      }),
    );
  });

  test('after a child failure, gives the last good handoff whole, or says there was none', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 256 }), fc.option(validReport), (round, handoff) => {
        const first = `Ralph round ${round} child failed before producing a structured report.`;
        expect(messages.childFailureMessage(round, handoff)).toBe(
          handoff === null
            ? `${first}\nNo previous handoff was available.`
            : `${first}\nLast successful handoff:\n${JSON.stringify(handoff, null, 2)}`,
        );
      }),
    );
  });

  test('names the depth limit and the bad agent command exactly', () => {
    expect(messages.ralphDepthLimitReached(2, 1)).toBe(
      'Ralph depth limit reached: this process runs at Ralph depth 2 (RALPH_DEPTH=2) and the limit is 1, so it may not start another Ralph child',
    );
    expect(messages.agentCommandInvalid("claude -p 'x", 'unterminated quote')).toBe(
      'Ralph agent command "claude -p \'x" is invalid: unterminated quote',
    );
  });
});
