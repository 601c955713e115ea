import { APICallError } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  claudeProvider,
  codexProvider,
  createProviderRegistry,
  createRalphTool,
  type RalphError,
  type SubagentProvider,
} from '../../src/index.js';
import { aiSdkProvider } from '../../src/providers/ai-sdk-provider.js';
import {
  claudeLimitOf,
  codexLimitOf,
  retryAfterOf,
  UsageLimitError,
} from '../../src/providers/usage-limit.js';
import { binDir, cleanEnv, useScratch } from '../support/processes.js';
import { scriptedModel } from './ai-sdk-mock-model.js';

const s = useScratch();
const NOW = new Date('2026-12-01T12:00:00.000Z');

describe('the limit messages of each agent are recognised, with their reset time', () => {
  it("Claude Code's: an epoch after the bar, a time of day to reset at, an API 429", () => {
    expect(claudeLimitOf('Claude AI usage limit reached|1798794000', NOW)?.resetsAt?.toISOString()).toBe(
      '2027-01-01T09:00:00.000Z',
    );
    const at5pm = claudeLimitOf('5-hour limit reached ∙ resets 5pm', NOW)?.resetsAt;
    expect(at5pm?.getHours()).toBe(17);
    expect(at5pm && at5pm > NOW).toBe(true);
    expect(claudeLimitOf('API Error: 429 {"type":"rate_limit_error"}', NOW)).toEqual({
      said: 'API Error: 429 {"type":"rate_limit_error"}',
      resetsAt: null,
    });
    expect(claudeLimitOf('API Error: 529 overloaded', NOW)).toBeNull();
  });

  it("Codex's: a usage limit to try again after, a 429", () => {
    expect(
      codexLimitOf("You've hit your usage limit. … or try again in 1 day 2 hours 3 minutes.", NOW)?.resetsAt,
    ).toEqual(new Date(NOW.getTime() + 86_400_000 + 2 * 3_600_000 + 3 * 60_000));
    expect(
      codexLimitOf('exceeded retry limit, last status: 429 Too Many Requests', NOW)?.resetsAt,
    ).toBeNull();
    expect(codexLimitOf('stream disconnected before completion', NOW)).toBeNull();
  });

  it('a retry-after header: seconds or an HTTP date', () => {
    expect(retryAfterOf('120', NOW)).toEqual(new Date(NOW.getTime() + 120_000));
    expect(retryAfterOf('Tue, 01 Dec 2026 13:00:00 GMT', NOW)).toEqual(new Date('2026-12-01T13:00:00.000Z'));
    expect(retryAfterOf('soon', NOW)).toBeNull();
    expect(retryAfterOf(undefined, NOW)).toBeNull();
  });
});

/** The child failure a one-round run over `provider` ends with. */
async function childFailure(provider: SubagentProvider): Promise<RalphError> {
  const providers = createProviderRegistry();
  providers.register(provider);
  const tool = createRalphTool({ subagentProvider: provider.name }, { providers });
  try {
    await tool.execute({ objective: 'Hit the limit' }, { agent: { id: 'parent', cwd: s.workspace } });
  } catch (error) {
    return error as RalphError;
  }
  throw new Error('the run did not fail');
}

describe('the time until a reset is said in whole seconds', () => {
  it('a reset read a few ms ago is still "in 2h 5m", not "in 2h 4m 59s 999ms"', () => {
    const now = new Date('2026-12-01T18:00:00.000Z');
    const resetsAt = new Date(now.getTime() + (2 * 60 + 5) * 60_000 - 3);
    const error = new UsageLimitError('codex', { said: 'try again in 2 hours 5 minutes.', resetsAt }, now);
    expect(error.message).toBe(
      'codex hit a usage or rate limit: try again in 2 hours 5 minutes.; it resets at 2026-12-01T20:04:59.997Z (in 2h 5m)',
    );
    expect(error.retryInMs).toBe((2 * 60 + 5) * 60_000 - 3);
  });
});

describe("a round that hit a usage limit is the reference's child failure, its detail naming the limit and its reset", () => {
  it('claude', async () => {
    const error = await childFailure(
      claudeProvider({
        path: `${binDir}claude`,
        env: { FAKE_CLAUDE_MODE: 'usage-limit', FAKE_RESETS_AT: '1798794000', FIXTURE_PID_LOG: s.pidLog },
        baseEnv: cleanEnv(),
      }),
    );
    expect(error.code).toBe('child-failed');
    expect(error.message).toBe(
      'Ralph round 1 child failed before producing a structured report.\nNo previous handoff was available.',
    );
    expect(error.detail).toMatch(
      /^claude hit a usage or rate limit: Claude AI usage limit reached\|1798794000; it resets at 2027-01-01T09:00:00\.000Z \(in .+\)$/,
    );
  });

  it('codex', async () => {
    const error = await childFailure(
      codexProvider({
        path: `${binDir}codex`,
        env: { FAKE_CODEX_MODE: 'usage-limit', FIXTURE_PID_LOG: s.pidLog },
        baseEnv: cleanEnv(),
      }),
    );
    expect(error.code).toBe('child-failed');
    expect(error.detail).toMatch(
      /^codex hit a usage or rate limit: You've hit your usage limit\. .* try again in 2 hours 5 minutes\.; it resets at \S+ \(in 2h ?0?5m\)$/,
    );
  });

  it('an AI SDK model call refused with status 429 and retry-after', async () => {
    const model = scriptedModel([
      () => {
        throw new APICallError({
          message: 'Rate limit reached for requests',
          url: 'https://api.example.test/v1/messages',
          requestBodyValues: {},
          statusCode: 429,
          responseHeaders: { 'retry-after': '90' },
          isRetryable: true,
        });
      },
    ]);
    const error = await childFailure(aiSdkProvider({ model, maxRetries: 0, baseEnv: cleanEnv() }));
    expect(error.code).toBe('child-failed');
    expect(error.detail).toMatch(
      /^ai-sdk hit a usage or rate limit: status 429: Rate limit reached for requests; it resets at \S+ \(in 1m ?30s\)$/,
    );
  });
});
