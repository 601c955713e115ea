import type { ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import type { RalphProgressEvent } from '../../src/contract/types.js';
import { callProgress } from '../../src/hosts/mcp/call-progress.js';

const at = { runId: 'run', maxRounds: 3 };
const accepted = (round: number): RalphProgressEvent => ({
  type: 'report-accepted',
  ...at,
  round,
  report: { status: 'complete', summary: `round ${round}`, evidence: ['ok'], nextSteps: [], blocker: null },
});

describe('the MCP progress of a run with guard rails', () => {
  it('sends a message per guard-rail event, its progress always above the last and below the next round', async () => {
    const sent: { progress: number; total?: number; message?: string }[] = [];
    const progress = callProgress({
      token: 'p',
      send: async (notification: ServerNotification) => {
        sent.push(notification.params as { progress: number; message?: string });
      },
      roundTrip: async () => {},
      signal: new AbortController().signal,
    });
    if (progress === undefined) throw new Error('a call with a token has progress');
    const verifyFinished = (round: number, passed: boolean): RalphProgressEvent => ({
      type: 'verify-finished',
      ...at,
      round,
      command: ['npm', 'test'],
      passed,
      exitCode: passed ? 0 : 1,
      signal: null,
      timedOut: false,
      durationMs: 1_000,
    });
    progress.onProgress(accepted(1));
    progress.onProgress({ type: 'verify-started', ...at, round: 1, command: ['npm', 'test'] });
    progress.onProgress(verifyFinished(1, false));
    progress.onProgress({ type: 'round-started', ...at, round: 2 });
    progress.onProgress(accepted(2));
    progress.onProgress(verifyFinished(2, true));
    await progress.delivered();

    expect(sent.map((n) => n.message)).toEqual([
      'Round 1/3 reported complete: round 1',
      'Round 1/3 verifying the completion with `npm test`',
      'Round 1/3 verify `npm test` exited 1 after 1s: completion not accepted',
      'Round 2/3 reported complete: round 2',
      'Round 2/3 verify `npm test` exited 0 after 1s: completion verified',
    ]);
    const values = sent.map((n) => n.progress);
    expect(values).toEqual([1, 1.5, 1.75, 2, 2.5]);
    expect(sent.every((n) => n.total === 3)).toBe(true);
  });
});
