import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  budgetLimitedLabel,
  CALLING_AGENT_MISSING,
  childFailureMessage,
  LAST_SUCCESSFUL_HANDOFF,
  MAX_ROUNDS_INVALID,
  maxRoundsExceedsCeiling,
  NO_PREVIOUS_HANDOFF,
  OBJECTIVE_EMPTY,
  providerInheritsParentContext,
  providerLacksStructuredOutput,
  providerNotRegistered,
  RALPH_GUIDANCE,
  roundChildFailed,
  TRUNCATION_MARKER,
  WORKER_REPORT_CAVEAT,
  WORKFLOW_CANCELLED,
  workflowFailed,
} from '../../src/index.js';

describe('every message reads word for word as the reference writes it', () => {
  it('spells each text exactly', () => {
    expect(OBJECTIVE_EMPTY).toBe('Ralph objective must be a non-empty string');
    expect(MAX_ROUNDS_INVALID).toBe('Ralph maxRounds must be a positive safe integer');
    expect(maxRoundsExceedsCeiling(300, 256)).toBe('Ralph maxRounds 300 exceeds the deployment ceiling 256');
    expect(CALLING_AGENT_MISSING).toBe('Ralph tool requires a calling agent (exec.agent was undefined)');
    expect(providerNotRegistered('x')).toBe('Ralph subagent provider "x" is not registered');
    expect(providerLacksStructuredOutput('x')).toBe(
      'Ralph subagent provider "x" does not support structured output',
    );
    expect(providerInheritsParentContext('x')).toBe(
      'Ralph subagent provider "x" inherits parent context; Ralph requires a fresh provider',
    );
    expect(workflowFailed('boom')).toBe('Ralph workflow failed: boom');
    expect(roundChildFailed(2)).toBe('Ralph round 2 child failed before producing a structured report.');
    expect(LAST_SUCCESSFUL_HANDOFF).toBe('Last successful handoff:');
    expect(NO_PREVIOUS_HANDOFF).toBe('No previous handoff was available.');
    expect(WORKFLOW_CANCELLED).toBe('Ralph workflow was cancelled');
    expect(budgetLimitedLabel(1)).toBe(
      'Ralph reached its 1 round limit; the worker reported work remaining.',
    );
    expect(budgetLimitedLabel(2)).toBe(
      'Ralph reached its 2 rounds limit; the worker reported work remaining.',
    );
    expect(TRUNCATION_MARKER).toBe('… [truncated]');
    expect(WORKER_REPORT_CAVEAT).toBe(
      'Completion and blockers are worker reports, not independent evaluation.',
    );
    expect(childFailureMessage(1, null)).toBe(
      'Ralph round 1 child failed before producing a structured report.\nNo previous handoff was available.',
    );
    expect(RALPH_GUIDANCE).toBe(
      'Use the ralph tool ONLY when the direct human explicitly asks for a Ralph loop or fresh-agent iterative execution. Each Ralph round starts a fresh child with no conversation seed and uses the shared workspace as durable memory. Completion and blockers are worker reports, not independent evaluation. Use same-session goal tools for ordinary long-running objectives, and plain subagents or workflowEngine for bounded delegation and fan-out.',
    );
  });

  // The seeds sit beside the repository (../shared/seeds) on developer machines and in CI.
  const seeds = fileURLToPath(new URL('../../../shared/seeds/', import.meta.url));
  it.skipIf(!existsSync(seeds))('finds each fixed text in the seeds', () => {
    const reference = readFileSync(`${seeds}ralph-tool-reference.txt`, 'utf8');
    const plugin = readFileSync(`${seeds}ralph-plugin-readme.txt`, 'utf8');
    for (const text of [
      OBJECTIVE_EMPTY,
      MAX_ROUNDS_INVALID,
      CALLING_AGENT_MISSING,
      WORKFLOW_CANCELLED,
      NO_PREVIOUS_HANDOFF,
      LAST_SUCCESSFUL_HANDOFF,
      WORKER_REPORT_CAVEAT,
      TRUNCATION_MARKER,
      'Ralph workflow failed:',
      maxRoundsExceedsCeiling(0, 0).replace(
        '0 exceeds the deployment ceiling 0',
        '<value> exceeds the deployment ceiling <ceiling>',
      ),
      providerNotRegistered('<name>'),
      providerLacksStructuredOutput('<name>'),
      providerInheritsParentContext('<name>'),
      roundChildFailed(0).replace('0', '<n>'),
      budgetLimitedLabel(0).replace('0 rounds', '<n>'),
    ]) {
      expect(reference).toContain(text);
    }
    expect(plugin).toContain(RALPH_GUIDANCE);
  });
});
