import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { RalphProgressEvent } from '../../src/contract/types.js';
import type { RalphUsage } from '../../src/contract/usage.js';
import { createProgressReporter } from '../../src/hosts/cli/progress.js';
import { callProgress, USAGE_META_KEY } from '../../src/hosts/mcp/call-progress.js';
import { captureStream } from '../support/capture-stream.js';

const report = {
  status: 'continue' as const,
  summary: 'half way',
  evidence: [],
  nextSteps: ['on'],
  blocker: null,
};
const plain: RalphProgressEvent = { type: 'report-accepted', runId: 'run', round: 1, maxRounds: 3, report };
const used: RalphProgressEvent = {
  ...plain,
  round: 2,
  usage: { costUsd: 0.25, inputTokens: 1200, outputTokens: 340, turns: 3 },
  totalUsage: { costUsd: 0.5, inputTokens: 2400, outputTokens: 680, turns: 6 },
};

/** The lines `ralph run` prints to a log (no terminal, no colours) for these events, and the total once over. */
function cliLines(events: RalphProgressEvent[], total?: RalphUsage): string[] {
  const { stream, chunks } = captureStream();
  const progress = createProgressReporter(stream, { live: false, color: false });
  for (const event of events) progress.onProgress(event);
  if (total !== undefined) progress.usageTotal(total);
  progress.stop();
  return chunks.join('').split('\n').filter(Boolean);
}

describe('ralph run shows what each round used and the run in all', () => {
  it("a round whose agent said nothing prints the reference's line; one that said prints it and the total so far", () => {
    expect(cliLines([plain, used], { costUsd: 0.5, turns: 6 })).toEqual([
      'ralph: round 1/3 reported continue: half way',
      'ralph: round 2/3 reported continue: half way [$0.25 · 1,200 in / 340 out tokens · 3 turns; run total $0.50 · 2,400 in / 680 out tokens · 6 turns]',
      'ralph: used in all: $0.50 · 6 turns',
    ]);
  });
});

describe('MCP progress says what each round used, in its message and its _meta', () => {
  it('adds both to a report that said, and neither to one that did not', async () => {
    const sent: ServerNotification[] = [];
    const progress = callProgress({
      token: 't',
      send: async (notification) => {
        sent.push(notification);
      },
      roundTrip: async () => {},
      signal: new AbortController().signal,
    });
    progress?.onProgress(plain);
    progress?.onProgress(used);
    await progress?.delivered();
    expect(sent.map((n) => n.params)).toEqual([
      { progressToken: 't', progress: 1, total: 3, message: 'Round 1/3 reported continue: half way' },
      {
        _meta: {
          [USAGE_META_KEY]: {
            round: { costUsd: 0.25, inputTokens: 1200, outputTokens: 340, turns: 3 },
            total: { costUsd: 0.5, inputTokens: 2400, outputTokens: 680, turns: 6 },
          },
        },
        progressToken: 't',
        progress: 2,
        total: 3,
        message:
          'Round 2/3 reported continue: half way [$0.25 · 1,200 in / 340 out tokens · 3 turns; run total $0.50 · 2,400 in / 680 out tokens · 6 turns]',
      },
    ]);
  });
});
