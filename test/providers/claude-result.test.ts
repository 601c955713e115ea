import { describe, expect, it } from 'vitest';
import { readClaudeResult } from '../../src/providers/claude.js';

const report = {
  status: 'complete',
  summary: 'fixed {the} bug',
  evidence: ['npm test passed'],
  nextSteps: [],
  blocker: null,
};

const outputs = (stdout: string) => ({
  reportFile: '/nonexistent/report.json',
  stdout,
  stderr: '',
  exitCode: 0,
});

const success = (result: string) => ({
  type: 'result',
  subtype: 'success',
  is_error: false,
  result,
  structured_output: report,
});

describe('the report in Claude Code’s --output-format json result', () => {
  it('is read from a result whose result text holds 600 braces', async () => {
    const stdout = `${JSON.stringify(success(`The plan: ${'{'.repeat(600)}`))}\n`;
    await expect(readClaudeResult(outputs(stdout))).resolves.toEqual(report);
  });

  it('is read from the last line when a warning line comes first', async () => {
    const stdout = `warning: {config} is {deprecated\n${JSON.stringify(success('}'.repeat(600)))}\n`;
    await expect(readClaudeResult(outputs(stdout))).resolves.toEqual(report);
  });

  it('is read from a pretty-printed result among logs', async () => {
    const stdout = `log {a}\n${JSON.stringify(success('ok'), null, 2)}\ntrailing {noise`;
    await expect(readClaudeResult(outputs(stdout))).resolves.toEqual(report);
  });

  it('is missing when the result has no structured output', async () => {
    const stdout = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: '{'.repeat(600),
    });
    await expect(readClaudeResult(outputs(stdout))).resolves.toBeUndefined();
  });

  it('is a child failure when the result is an error, whatever braces its text holds', async () => {
    const stdout = JSON.stringify({
      type: 'result',
      subtype: 'error_max_turns',
      is_error: true,
      result: `stopped ${'{'.repeat(600)}`,
    });
    await expect(readClaudeResult(outputs(stdout))).rejects.toThrow(
      /^claude reported error_max_turns: stopped \{/,
    );
  });

  it('is missing when stdout holds no JSON object at all', async () => {
    await expect(readClaudeResult(outputs('claude: command crashed {\n'))).resolves.toBeUndefined();
  });
});
