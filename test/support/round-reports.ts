import type { RalphReport } from '../../src/index.js';

/** A valid continue report. */
export const continueReport = (
  summary = 'did part of the work',
  next = ['do the next part'],
): RalphReport => ({
  status: 'continue',
  summary,
  evidence: [],
  nextSteps: next,
  blocker: null,
});

/** A valid complete report. */
export const completeReport = (summary = 'finished', evidence = ['npm test passed']): RalphReport => ({
  status: 'complete',
  summary,
  evidence,
  nextSteps: [],
  blocker: null,
});

/** A valid blocked report. */
export const blockedReport = (blocker = 'the API key is missing'): RalphReport => ({
  status: 'blocked',
  summary: 'could not go on',
  evidence: [],
  nextSteps: [],
  blocker,
});
