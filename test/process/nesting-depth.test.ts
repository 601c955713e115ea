import { describe, expect, it } from 'vitest';
import {
  assertDepthAllowed,
  commandProvider,
  createProviderRegistry,
  createRalphTool,
  currentDepth,
  RALPH_DEPTH_ENV,
  RalphError,
} from '../../src/index.js';
import { agentCommand, cleanEnv, useScratch } from '../support/processes.js';
import { rejection } from '../support/tool.js';

describe('the recursion guard reads RALPH_DEPTH', () => {
  it('is named RALPH_DEPTH', () => {
    expect(RALPH_DEPTH_ENV).toBe('RALPH_DEPTH');
  });

  it.each([
    [undefined, 0],
    ['0', 0],
    ['2', 2],
    [' 3 ', 3],
    ['', 0],
    ['-1', 0],
    ['two', 0],
  ])('RALPH_DEPTH=%j is depth %i', (value, depth) => {
    expect(currentDepth(value === undefined ? {} : { RALPH_DEPTH: value })).toBe(depth);
  });

  it('allows a process below the limit', () => {
    expect(() => assertDepthAllowed(3, { RALPH_DEPTH: '2' })).not.toThrow();
    expect(() => assertDepthAllowed(1, {})).not.toThrow();
  });

  it('refuses a process at or past the limit, with a clear message', () => {
    for (const depth of ['3', '7']) {
      let thrown: unknown;
      try {
        assertDepthAllowed(3, { RALPH_DEPTH: depth });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(RalphError);
      expect((thrown as RalphError).code).toBe('refused');
      expect((thrown as RalphError).message).toBe(
        `Ralph depth limit reached: this process runs at Ralph depth ${depth} (RALPH_DEPTH=${depth}) and the limit is 3, so it may not start another Ralph child`,
      );
    }
  });
});

describe('a command provider at the depth limit starts nothing', () => {
  const s = useScratch();

  const toolAtDepth = (depth: string, depthLimit?: number) => {
    const providers = createProviderRegistry();
    providers.register(
      commandProvider({
        command: agentCommand('report-file.mjs'),
        baseEnv: { ...cleanEnv(), RALPH_DEPTH: depth },
        env: { FIXTURE_PID_LOG: s.pidLog },
        ...(depthLimit === undefined ? {} : { depthLimit }),
      }),
    );
    return createRalphTool({ subagentProvider: 'command' }, { providers });
  };

  it('fails the call before spawning, naming the depth and the limit (default 3)', async () => {
    const error = await rejection(
      toolAtDepth('3').execute({ objective: 'x' }, { agent: { id: 'p', cwd: s.workspace } }),
    );
    expect(error.code).toBe('workflow-failed');
    expect(error.message).toBe(
      'Ralph workflow failed: subagent provider "command" failed to start round 1: Ralph depth limit reached: this process runs at Ralph depth 3 (RALPH_DEPTH=3) and the limit is 3, so it may not start another Ralph child',
    );
    expect(error.detail).toContain('Ralph depth limit reached');
    expect(await s.pids()).toEqual([]);
  });

  it('runs below the limit, and honours a configured limit', async () => {
    const below = await toolAtDepth('2').execute(
      { objective: 'x' },
      { agent: { id: 'p', cwd: s.workspace } },
    );
    expect(below.result.status).toBe('complete');
    const error = await rejection(
      toolAtDepth('1', 1).execute({ objective: 'x' }, { agent: { id: 'p', cwd: s.workspace } }),
    );
    expect(error.message).toMatch(/Ralph depth 1 \(RALPH_DEPTH=1\) and the limit is 1,/);
    expect(await s.pids()).toHaveLength(1);
  });
});
