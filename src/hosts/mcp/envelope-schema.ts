import { reportJsonSchema } from '../../contract/round-report.js';

const { $schema: _draft, ...reportObjectSchema } = reportJsonSchema;

/**
 * The JSON Schema of the envelope a successful call returns as `structuredContent`: `{ runId, agentsStarted,
 * result: { status, rounds, report } }`, the report being the round report's own schema. It describes successes
 * only; refusals, failures and cancellation come back as `isError` results, which carry no structured content.
 */
export const envelopeJsonSchema = Object.freeze({
  type: 'object',
  properties: {
    runId: { type: 'string', description: 'The id of the run.' },
    agentsStarted: { type: 'integer', minimum: 0, description: 'How many fresh child agents were started.' },
    result: {
      type: 'object',
      properties: {
        status: {
          type: 'string',
          enum: ['complete', 'blocked', 'budget-limited'],
          description:
            'How the loop settled, as the worker reported it: complete, blocked, or budget-limited (round cap reached with work remaining).',
        },
        rounds: { type: 'integer', minimum: 1, description: 'Rounds started.' },
        report: { ...reportObjectSchema, description: 'The last round report, as validated.' },
        limit: {
          description:
            'Only when a guard rail, not the round cap, ended the run budget-limited: the time limit, the idle limit or the cost limit (with what was spent, USD).',
          oneOf: [
            {
              type: 'object',
              properties: {
                kind: { const: 'time' },
                maxWallTimeMs: { type: 'integer', minimum: 1 },
                unfinishedRound: {
                  type: 'integer',
                  minimum: 1,
                  description:
                    'The round stopped when the time ran out, before it reported; the report is the round before it.',
                },
                unevaluatedRound: {
                  type: 'integer',
                  minimum: 1,
                  description:
                    "The round whose reported completion an independent evaluator was checking when the time ran out: not accepted; the report is that round's.",
                },
              },
              required: ['kind', 'maxWallTimeMs'],
              additionalProperties: false,
            },
            {
              type: 'object',
              properties: { kind: { const: 'idle' }, maxIdleRounds: { type: 'integer', minimum: 1 } },
              required: ['kind', 'maxIdleRounds'],
              additionalProperties: false,
            },
            {
              type: 'object',
              properties: {
                kind: { const: 'cost' },
                maxCostUsd: { type: 'number', exclusiveMinimum: 0 },
                spentUsd: { type: 'number', minimum: 0 },
                uncountedRounds: {
                  type: 'array',
                  items: { type: 'integer', minimum: 1 },
                  description:
                    'Only in a resumed run: rounds whose spend is unknown (their host stopped mid-round), not in spentUsd.',
                },
              },
              required: ['kind', 'maxCostUsd', 'spentUsd'],
              additionalProperties: false,
            },
          ],
        },
        verifiedBy: {
          type: 'array',
          items: { type: 'string' },
          description: 'Only when a verify command accepted the completion: its argv (it exited 0).',
        },
        evaluation: {
          type: 'object',
          description:
            "Only when the deployment's independent evaluator gave a verdict in the run: the last one, and how many evaluators were started (agentsStarted counts the rounds' workers only).",
          properties: {
            evaluator: { type: 'string', description: 'The evaluator provider.' },
            round: {
              type: 'integer',
              minimum: 1,
              description: 'The round whose reported completion it judged.',
            },
            verdict: { type: 'string', enum: ['accept', 'reject'] },
            findings: { type: 'array', items: { type: 'string' } },
            evidence: { type: 'array', items: { type: 'string' } },
            evaluatorsStarted: { type: 'integer', minimum: 1 },
          },
          required: ['evaluator', 'round', 'verdict', 'findings', 'evidence', 'evaluatorsStarted'],
          additionalProperties: false,
        },
        question: {
          type: 'object',
          description:
            'Only on a blocked run that asked a person (a deployment with answers on) and got no answer: the blocked round, why it ended without one, and how long it was to wait.',
          properties: {
            round: { type: 'integer', minimum: 1 },
            reason: { type: 'string', enum: ['timed-out', 'given-up', 'time-limit', 'unavailable'] },
            waitMs: { type: 'integer', minimum: 1 },
            detail: { type: 'string', description: 'Only when the answer could not be awaited: why.' },
          },
          required: ['round', 'reason', 'waitMs'],
          additionalProperties: false,
        },
      },
      required: ['status', 'rounds', 'report'],
      additionalProperties: false,
    },
  },
  required: ['runId', 'agentsStarted', 'result'],
  additionalProperties: false,
});

/**
 * The JSON Schema of a successful call's `structuredContent`: the envelope with the native result text beside it,
 * in `text` (the same text as the call's text content). Claude Code hands its model the `structuredContent` of a
 * result in place of its text content, so without `text` a Claude model would never read the native result, nor
 * its caveat that completion and blockers are worker reports; clients that read the envelope read it as before.
 */
export const structuredResultJsonSchema = Object.freeze({
  ...envelopeJsonSchema,
  properties: {
    text: {
      type: 'string',
      description:
        'The native result text, as the text content carries it: what the worker reported, and that completion and blockers are worker reports, not independent evaluation.',
    },
    ...envelopeJsonSchema.properties,
  },
  required: ['text', ...envelopeJsonSchema.required],
});
