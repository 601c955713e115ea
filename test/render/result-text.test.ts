import { describe, expect, it } from 'vitest';
import type { RalphEnvelope } from '../../src/index.js';
import { renderResultText } from '../../src/index.js';
import { blockedReport, completeReport, continueReport } from '../support/round-reports.js';
import { agent, scriptedTool } from '../support/tool.js';

const envelope = (status: RalphEnvelope['result']['status'], rounds: number, report = completeReport()) => ({
  runId: 'run-1',
  agentsStarted: rounds,
  result: { status, rounds, report },
});

describe('rendering', () => {
  it('shows the pending call as a card titled ralph with the objective as raw input', () => {
    const { tool } = scriptedTool([]);
    expect(tool.render.pending({ objective: 'port the parser', maxRounds: 3 })).toEqual({
      title: 'ralph',
      rawInput: 'port the parser',
    });
    expect(tool.render.pending({})).toEqual({ title: 'ralph', rawInput: '' });
  });

  it('labels completion as the worker report it is, with the round count and the pretty report', () => {
    const report = completeReport('done', ['tests pass']);
    expect(renderResultText(envelope('complete', 2, report))).toBe(
      [
        'Ralph complete: the worker reported the objective complete after 2 rounds. Completion and blockers are worker reports, not independent evaluation.',
        'Rounds: 2',
        '',
        'Final report:',
        JSON.stringify(report, null, 2),
      ].join('\n'),
    );
  });

  it('labels a blocker as the worker report it is', () => {
    const text = renderResultText(envelope('blocked', 1, blockedReport('no key')));
    expect(text.split('\n')[0]).toBe(
      'Ralph blocked: the worker reported a blocker after 1 round. Completion and blockers are worker reports, not independent evaluation.',
    );
    expect(text).toContain('"blocker": "no key"');
  });

  it.each([
    [1, 'Ralph reached its 1 round limit; the worker reported work remaining.'],
    [3, 'Ralph reached its 3 rounds limit; the worker reported work remaining.'],
  ])('renders budget-limited at %i as the reference words it', (rounds, label) => {
    const text = renderResultText(envelope('budget-limited', rounds, continueReport()));
    expect(text.split('\n')[0]).toBe(label);
    expect(text).toContain(`Rounds: ${rounds}`);
  });

  it('cuts a long result at maxResultChars, marker included, and leaves the envelope whole', async () => {
    const report = completeReport('z'.repeat(1_000));
    const { tool } = scriptedTool([{ report }], { maxResultChars: 200 });
    const result = await tool.execute({ objective: 'x' }, { agent });
    const card = tool.render.result({ objective: 'x' }, result);
    expect(card.title).toBe('ralph');
    expect(card.text).toHaveLength(200);
    expect(card.text.endsWith('… [truncated]')).toBe(true);
    expect(
      renderResultText(result, Number.MAX_SAFE_INTEGER).startsWith(
        card.text.slice(0, -'… [truncated]'.length),
      ),
    ).toBe(true);
    expect(result.result.report).toEqual(report);
  });

  it('leaves a result that fits untouched, with no marker', async () => {
    const { tool } = scriptedTool([{ report: completeReport() }]);
    const result = await tool.execute({ objective: 'x' }, { agent });
    const text = tool.render.result({}, result).text;
    expect(text).not.toContain('[truncated]');
    expect(text).toBe(renderResultText(result, Number.MAX_SAFE_INTEGER));
  });

  it('defaults the result cap to 16,384 characters', () => {
    const text = renderResultText(envelope('complete', 1, completeReport('w'.repeat(20_000))));
    expect(text).toHaveLength(16_384);
    expect(text.endsWith('… [truncated]')).toBe(true);
  });

  it('never splits a surrogate pair when cutting', () => {
    const text = renderResultText(envelope('complete', 1, completeReport('😀'.repeat(200))), 301);
    expect(text.endsWith('… [truncated]')).toBe(true);
    expect(text.length).toBeLessThanOrEqual(301);
    expect(() => encodeURIComponent(text)).not.toThrow();
  });
});
