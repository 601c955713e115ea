import { machineInputOf } from '../../src/actors/engine.js';
import { normalizeConfig, type RalphConfig, type RalphConfigInput } from '../../src/contract/config.js';
import type { AgentRef, ProviderCapabilities, SubagentProvider } from '../../src/contract/types.js';
import type { RalphMachineInput, RalphResumePoint } from '../../src/machines/ralph.machine.js';
import { MODEL_HANDOFF_CAP } from './report-variants.js';

/** The run id of every model run, so that the model's contexts and the replayed ones compare equal. */
export const MODEL_RUN_ID = 'model-run';
/** The configured provider's name. */
export const PROVIDER_NAME = 'mock-agent';
/** The configured evaluator provider's name (`config.evaluator.provider`). */
export const EVALUATOR_NAME = 'mock-evaluator';
/** The calling agent of every call that has one. */
export const CALLER: AgentRef = { id: 'parent-agent', cwd: '/tmp/ralph-model-workspace' };

/** One call as a host makes it, and what the seed rules say of it: refused with a message, or run up to a cap. */
export interface InputVariant {
  name: string;
  args: unknown;
  agent: AgentRef | undefined;
  config: RalphConfig;
  /** Whether the configured provider is in the registry, and what it declares if it is. */
  provider: { registered: false } | { registered: true; capabilities: ProviderCapabilities };
  /** The evaluator provider, as `provider`, when the config names one (`config.evaluator`); absent: none. */
  evaluator?: InputVariant['provider'];
  /** The engine's own ceiling on children per run. */
  maxTotalAgents: number;
  /** Where a resumed run picks up; absent for a new run. */
  resume?: RalphResumePoint;
  expected: { refusal: string } | { cap: number };
}

const FRESH: ProviderCapabilities = { structuredOutput: true, inheritsParentContext: false };

const config = (overrides: Partial<RalphConfigInput> = {}): RalphConfig =>
  normalizeConfig({ subagentProvider: PROVIDER_NAME, maxHandoffChars: MODEL_HANDOFF_CAP, ...overrides });

interface CallShape {
  args?: unknown;
  agent?: AgentRef | undefined;
  config?: RalphConfig;
  provider?: InputVariant['provider'];
  evaluator?: InputVariant['provider'];
  maxTotalAgents?: number;
  resume?: RalphResumePoint;
}

const call = (name: string, shape: CallShape, expected: InputVariant['expected']): InputVariant => ({
  name,
  args: 'args' in shape ? shape.args : { objective: 'Port the parser to Rust' },
  agent: 'agent' in shape ? shape.agent : CALLER,
  config: shape.config ?? config(),
  provider: shape.provider ?? { registered: true, capabilities: FRESH },
  ...(shape.evaluator === undefined ? {} : { evaluator: shape.evaluator }),
  maxTotalAgents: shape.maxTotalAgents ?? 256,
  ...(shape.resume === undefined ? {} : { resume: shape.resume }),
  expected,
});

const refused = (name: string, shape: CallShape, message: string) => call(name, shape, { refusal: message });

// The refusal texts are the reference's, spelled out here rather than taken from the code under test.
const OBJECTIVE = 'Ralph objective must be a non-empty string';
const MAX_ROUNDS = 'Ralph maxRounds must be a positive safe integer';
const NO_AGENT = 'Ralph tool requires a calling agent (exec.agent was undefined)';
const ceiling = (value: number, limit: number) =>
  `Ralph maxRounds ${value} exceeds the deployment ceiling ${limit}`;
const NOT_REGISTERED = `Ralph subagent provider "${PROVIDER_NAME}" is not registered`;
const NO_STRUCTURED_OUTPUT = `Ralph subagent provider "${PROVIDER_NAME}" does not support structured output`;
// Resume is not in the reference: this text is ralph's own (contract/messages.ts resumeRefused).
const resumeRefusal = (problem: string) => `Ralph cannot resume the run: ${problem}`;
/** The handoff of a run resumed after its first round: a continue report the rules accept. */
const RESUMED_HANDOFF = {
  status: 'continue' as const,
  summary: 'Round 1 ported the lexer',
  evidence: ['lexer.rs compiles'],
  nextSteps: ['port the parser'],
  blocker: null,
};
const NO_COST = `Ralph cannot hold the $2.00 cost limit: subagent provider "${PROVIDER_NAME}" does not report what its rounds cost, so the budget would never stop the run. Use a provider that reports cost (claude, or a command agent whose provider is configured with reportsCost and that writes costUsd to RALPH_USAGE_FILE), or drop the cost limit.`;
const INHERITS = `Ralph subagent provider "${PROVIDER_NAME}" inherits parent context; Ralph requires a fresh provider`;
// The sandbox is not in the reference either: contract/sandbox-messages.ts providerCannotSandbox.
const cannotSandbox = (role: 'subagent' | 'evaluator', name: string) =>
  `Ralph cannot run ${role} provider "${name}" in a sandbox: it does not start its children as processes ralph can sandbox (command agents and the agent CLI presets can). Use a command provider, or run without the sandbox.`;
const NO_SANDBOX = cannotSandbox('subagent', PROVIDER_NAME);
/** The deployment's sandbox: the model never starts a process, only the checks read it. */
const SANDBOX = { sandbox: { network: 'none' as const } };
/** A fresh provider that starts its children in the run's sandbox (a command agent). */
const SANDBOXES: InputVariant['provider'] = {
  registered: true,
  capabilities: { structuredOutput: true, inheritsParentContext: false, sandbox: true },
};

/** Calls the checks refuse before anything starts, one per check, and some that fail several checks at once. */
export const REFUSED_CALLS: readonly InputVariant[] = [
  refused('no objective', { args: {} }, OBJECTIVE),
  refused('arguments that are not an object', { args: null }, OBJECTIVE),
  refused('an empty objective', { args: { objective: '' } }, OBJECTIVE),
  refused('a whitespace objective', { args: { objective: ' \n\t ' } }, OBJECTIVE),
  refused('an objective that is not a string', { args: { objective: 42 } }, OBJECTIVE),
  refused('maxRounds 0', { args: { objective: 'o', maxRounds: 0 } }, MAX_ROUNDS),
  refused('maxRounds -1', { args: { objective: 'o', maxRounds: -1 } }, MAX_ROUNDS),
  refused('maxRounds 1.5', { args: { objective: 'o', maxRounds: 1.5 } }, MAX_ROUNDS),
  refused('maxRounds "2"', { args: { objective: 'o', maxRounds: '2' } }, MAX_ROUNDS),
  refused('maxRounds NaN', { args: { objective: 'o', maxRounds: Number.NaN } }, MAX_ROUNDS),
  refused(
    'maxRounds Infinity',
    { args: { objective: 'o', maxRounds: Number.POSITIVE_INFINITY } },
    MAX_ROUNDS,
  ),
  refused('maxRounds 2^53', { args: { objective: 'o', maxRounds: 2 ** 53 } }, MAX_ROUNDS),
  refused(
    'maxRounds one over the deployment ceiling',
    { args: { objective: 'o', maxRounds: 4 }, config: config({ maxRounds: 3 }) },
    ceiling(4, 3),
  ),
  refused(
    'maxRounds 257 over the default ceiling',
    { args: { objective: 'o', maxRounds: 257 } },
    ceiling(257, 256),
  ),
  refused(
    'the largest safe maxRounds',
    { args: { objective: 'o', maxRounds: Number.MAX_SAFE_INTEGER } },
    ceiling(Number.MAX_SAFE_INTEGER, 256),
  ),
  refused(
    'a deployment default over the engine ceiling',
    { config: config({ maxRounds: 3 }), maxTotalAgents: 2 },
    ceiling(3, 2),
  ),
  refused(
    'maxRounds within the deployment ceiling but over the engine ceiling',
    { args: { objective: 'o', maxRounds: 3 }, config: config({ maxRounds: 5 }), maxTotalAgents: 2 },
    ceiling(3, 2),
  ),
  refused('no calling agent', { agent: undefined }, NO_AGENT),
  refused('an unregistered provider', { provider: { registered: false } }, NOT_REGISTERED),
  refused(
    'a provider without structured output',
    {
      provider: { registered: true, capabilities: { structuredOutput: false, inheritsParentContext: false } },
    },
    NO_STRUCTURED_OUTPUT,
  ),
  refused(
    'a provider that inherits the parent context',
    { provider: { registered: true, capabilities: { structuredOutput: true, inheritsParentContext: true } } },
    INHERITS,
  ),
  refused(
    'a cost limit with a provider that does not report cost',
    { config: config({ maxCostUsd: 2 }) },
    NO_COST,
  ),
  refused('a sandbox with a provider that cannot sandbox', { config: config(SANDBOX) }, NO_SANDBOX),
  refused(
    'a sandbox and a cost limit the provider cannot hold: the cost limit speaks',
    { config: config({ ...SANDBOX, maxCostUsd: 2 }) },
    NO_COST,
  ),
  refused(
    'a sandbox the provider cannot hold and a resume point at the round cap: the sandbox speaks',
    {
      args: { objective: 'o', maxRounds: 2 },
      config: config(SANDBOX),
      resume: { round: 2, handoff: RESUMED_HANDOFF, agentsStarted: 2 },
    },
    NO_SANDBOX,
  ),
  refused(
    'every check failing: the objective speaks first',
    {
      args: { objective: '', maxRounds: 0 },
      agent: undefined,
      provider: { registered: false },
      maxTotalAgents: 1,
    },
    OBJECTIVE,
  ),
  refused(
    'bad maxRounds, no agent, no provider: maxRounds speaks',
    { args: { objective: 'o', maxRounds: -3 }, agent: undefined, provider: { registered: false } },
    MAX_ROUNDS,
  ),
  refused(
    'over both ceilings, no agent: the deployment ceiling speaks',
    {
      args: { objective: 'o', maxRounds: 9 },
      config: config({ maxRounds: 4 }),
      maxTotalAgents: 2,
      agent: undefined,
    },
    ceiling(9, 4),
  ),
  refused(
    'over the engine ceiling, no agent: the engine ceiling speaks',
    { config: config({ maxRounds: 4 }), maxTotalAgents: 2, agent: undefined },
    ceiling(4, 2),
  ),
  refused(
    'no agent and no provider: the agent speaks',
    { agent: undefined, provider: { registered: false } },
    NO_AGENT,
  ),
  refused(
    'neither structured output nor fresh: structured output speaks',
    {
      provider: { registered: true, capabilities: { structuredOutput: false, inheritsParentContext: true } },
    },
    NO_STRUCTURED_OUTPUT,
  ),
  refused(
    'a resume point at the round cap',
    {
      args: { objective: 'o', maxRounds: 2 },
      resume: { round: 2, handoff: RESUMED_HANDOFF, agentsStarted: 2 },
    },
    resumeRefusal('its finished rounds (2) must be a whole number below the round cap 2'),
  ),
  refused(
    'a resume point whose handoff settled the run',
    {
      args: { objective: 'o', maxRounds: 3 },
      resume: {
        round: 1,
        handoff: { ...RESUMED_HANDOFF, status: 'complete', nextSteps: [] },
        agentsStarted: 1,
      },
    },
    resumeRefusal('its last handoff is complete: the run settled'),
  ),
  refused(
    'a resume point past its rounds with no handoff',
    { args: { objective: 'o', maxRounds: 3 }, resume: { round: 1, handoff: null, agentsStarted: 1 } },
    resumeRefusal('its last handoff is missing'),
  ),
  refused(
    'a resume point with fewer children than rounds',
    {
      args: { objective: 'o', maxRounds: 3 },
      resume: { round: 1, handoff: RESUMED_HANDOFF, agentsStarted: 0 },
    },
    resumeRefusal('its children started (0) must be a whole number of at least its finished rounds'),
  ),
  refused(
    'a resume point for an invalid call: the call speaks first',
    { args: { objective: '' }, resume: { round: 9, handoff: null, agentsStarted: 0 } },
    OBJECTIVE,
  ),
];

/** Accepted calls at round caps 1, 2 and 3, each reaching its cap a different way. */
export const ACCEPTED_CALLS: readonly InputVariant[] = [
  call(
    'cap 1 from the call, grace 0',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 1 },
      config: config({ maxRounds: 3, terminationGraceMs: 0 }),
    },
    { cap: 1 },
  ),
  call(
    'cap 2 from the deployment (maxRounds null), default grace',
    { args: { objective: '  Port the parser to Rust  ', maxRounds: null }, config: config({ maxRounds: 2 }) },
    { cap: 2 },
  ),
  call(
    'cap 3 at both ceilings, grace 250',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 3 },
      config: config({ maxRounds: 3, terminationGraceMs: 250 }),
      maxTotalAgents: 3,
    },
    { cap: 3 },
  ),
  call(
    'cap 1, sandboxed (the provider starts its children in the sandbox)',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 1 },
      config: config(SANDBOX),
      provider: SANDBOXES,
    },
    { cap: 1 },
  ),
  call(
    'cap 3, resumed after round 1 (its round 2 was interrupted: 2 children started)',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 3 },
      resume: { round: 1, handoff: RESUMED_HANDOFF, agentsStarted: 2 },
    },
    { cap: 3 },
  ),
];

/**
 * Accepted calls with a guard rail on, one each (their timers would otherwise race on the simulated clock) and one
 * with the verify command and the idle watch together, where a rejected completion meets the fingerprint.
 */
export const GUARD_RAIL_CALLS: readonly InputVariant[] = [
  call(
    'cap 2 and a round timeout of 30m',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 2 },
      config: config({ roundTimeoutMs: 1_800_000 }),
    },
    { cap: 2 },
  ),
  call(
    'cap 2 and a time limit of 2h',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 2 },
      config: config({ maxWallTimeMs: 7_200_000 }),
    },
    { cap: 2 },
  ),
  call(
    'cap 2 and a verify command',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 2 },
      config: config({ verify: { argv: ['npm', 'test'] } }),
    },
    { cap: 2 },
  ),
  call(
    'cap 3 and an idle limit of 2 rounds',
    { args: { objective: 'Port the parser to Rust', maxRounds: 3 }, config: config({ maxIdleRounds: 2 }) },
    { cap: 3 },
  ),
  call(
    'cap 3, a verify command and a cost limit of $1 (every round says it cost $1)',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 3 },
      config: config({ verify: { argv: ['npm', 'test'] }, maxCostUsd: 1 }),
      provider: { registered: true, capabilities: { ...FRESH, reportsCost: true } },
    },
    { cap: 3 },
  ),
  call(
    'cap 2 and --wait-on-limits',
    { args: { objective: 'Port the parser to Rust', maxRounds: 2 }, config: config({ waitOnLimits: true }) },
    { cap: 2 },
  ),
  call(
    'cap 2, --wait-on-limits and a time limit of 2h',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 2 },
      config: config({ waitOnLimits: true, maxWallTimeMs: 7_200_000 }),
    },
    { cap: 2 },
  ),
  call(
    'cap 2, a verify command, an idle limit of 1 round and a time limit of 2h',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 2 },
      config: config({ verify: { argv: ['npm', 'test'] }, maxIdleRounds: 1, maxWallTimeMs: 7_200_000 }),
    },
    { cap: 2 },
  ),
];

/** A call whose config names the evaluator, which declares `evaluator` (registered and fresh unless given). */
const evaluated = (name: string, shape: CallShape, expected: InputVariant['expected']): InputVariant =>
  call(
    name,
    {
      ...shape,
      config: { ...(shape.config ?? config()), evaluator: { provider: EVALUATOR_NAME } },
      evaluator: shape.evaluator ?? { registered: true, capabilities: FRESH },
    },
    expected,
  );

// The evaluator's refusals are ralph's own (the reference defers evaluators): contract/evaluator-messages.ts.
const EVALUATOR_NOT_REGISTERED = `Ralph evaluator provider "${EVALUATOR_NAME}" is not registered`;
const EVALUATOR_NO_STRUCTURED_OUTPUT = `Ralph evaluator provider "${EVALUATOR_NAME}" does not support structured output`;
const EVALUATOR_INHERITS = `Ralph evaluator provider "${EVALUATOR_NAME}" inherits parent context; Ralph requires a fresh evaluator`;
const EVALUATOR_NO_COST = `Ralph cannot hold the cost limit: evaluator provider "${EVALUATOR_NAME}" does not report what its evaluations cost. Use an evaluator that reports cost, or drop the cost limit.`;
const EVALUATOR_NO_SANDBOX = cannotSandbox('evaluator', EVALUATOR_NAME);
const REPORTS_COST: InputVariant['provider'] = {
  registered: true,
  capabilities: { ...FRESH, reportsCost: true },
};
/** The complete report an evaluator was checking when the run stopped (the handoff of an `evaluating` point). */
export const EVALUATED_HANDOFF = {
  status: 'complete' as const,
  summary: 'Round 1 ported the parser',
  evidence: ['cargo test: 40 passed'],
  nextSteps: [],
  blocker: null,
};

/**
 * A call at cap 2 resumed from a point taken while an evaluator checked round 1's complete report, with `changes`
 * made to that point, refused for `problem`; made with an evaluator unless `make` says otherwise.
 */
const stoppedWhileEvaluating = (
  name: string,
  changes: Partial<RalphResumePoint>,
  problem: string,
  make: typeof call = evaluated,
): InputVariant =>
  make(
    name,
    {
      args: { objective: 'o', maxRounds: 2 },
      resume: { round: 1, handoff: EVALUATED_HANDOFF, agentsStarted: 1, evaluating: true, ...changes },
    },
    { refusal: resumeRefusal(problem) },
  );

/**
 * Calls with an evaluator the checks refuse: one per evaluator check, the order in which they speak (after the
 * provider's and the cost budget's, before the resume point's), and every problem of an `evaluating` resume point.
 */
export const REFUSED_EVALUATOR_CALLS: readonly InputVariant[] = [
  evaluated(
    'an unregistered evaluator',
    { evaluator: { registered: false } },
    { refusal: EVALUATOR_NOT_REGISTERED },
  ),
  evaluated(
    'an evaluator without structured output',
    {
      evaluator: {
        registered: true,
        capabilities: { structuredOutput: false, inheritsParentContext: false },
      },
    },
    { refusal: EVALUATOR_NO_STRUCTURED_OUTPUT },
  ),
  evaluated(
    'an evaluator that inherits the parent context',
    {
      evaluator: { registered: true, capabilities: { structuredOutput: true, inheritsParentContext: true } },
    },
    { refusal: EVALUATOR_INHERITS },
  ),
  evaluated(
    'a cost limit with an evaluator that does not report cost',
    { config: config({ maxCostUsd: 2 }), provider: REPORTS_COST },
    { refusal: EVALUATOR_NO_COST },
  ),
  evaluated(
    'a sandbox with an evaluator that cannot sandbox',
    { config: config(SANDBOX), provider: SANDBOXES },
    { refusal: EVALUATOR_NO_SANDBOX },
  ),
  evaluated(
    'a sandbox neither the provider nor the evaluator can hold: the provider speaks',
    { config: config(SANDBOX) },
    { refusal: NO_SANDBOX },
  ),
  evaluated(
    "a sandbox the provider cannot hold and a cost limit the evaluator cannot: the evaluator's cost speaks",
    {
      config: config({ ...SANDBOX, maxCostUsd: 2 }),
      provider: { registered: true, capabilities: { ...FRESH, reportsCost: true } },
    },
    { refusal: EVALUATOR_NO_COST },
  ),
  evaluated(
    'an unregistered provider and an unregistered evaluator: the provider speaks',
    { provider: { registered: false }, evaluator: { registered: false } },
    { refusal: NOT_REGISTERED },
  ),
  evaluated(
    'a cost limit neither the provider nor the evaluator reports: the provider speaks',
    { config: config({ maxCostUsd: 2 }) },
    { refusal: NO_COST },
  ),
  evaluated(
    'an evaluator neither structured nor fresh: structured output speaks',
    {
      evaluator: { registered: true, capabilities: { structuredOutput: false, inheritsParentContext: true } },
    },
    { refusal: EVALUATOR_NO_STRUCTURED_OUTPUT },
  ),
  evaluated(
    'an unregistered evaluator and a resume point at the round cap: the evaluator speaks',
    {
      args: { objective: 'o', maxRounds: 2 },
      evaluator: { registered: false },
      resume: { round: 2, handoff: RESUMED_HANDOFF, agentsStarted: 2 },
    },
    { refusal: EVALUATOR_NOT_REGISTERED },
  ),
  stoppedWhileEvaluating(
    'an evaluating resume point without an evaluator',
    {},
    "it stopped while an evaluator was checking round 1's completion: resume it with an evaluator",
    call,
  ),
  stoppedWhileEvaluating(
    'an evaluating resume point past the round cap',
    { round: 3, agentsStarted: 3 },
    'its evaluated round (3) must be a whole number from 1 to the round cap 2',
  ),
  stoppedWhileEvaluating(
    'an evaluating resume point before any round',
    { round: 0, agentsStarted: 0 },
    'its evaluated round (0) must be a whole number from 1 to the round cap 2',
  ),
  stoppedWhileEvaluating(
    'an evaluating resume point with fewer children than rounds',
    { agentsStarted: 0 },
    'its children started (0) must be a whole number of at least its finished rounds',
  ),
  stoppedWhileEvaluating(
    'an evaluating resume point whose report is not complete',
    { handoff: RESUMED_HANDOFF },
    'the report its evaluator was checking is not a complete report the rules accept',
  ),
];

/**
 * Accepted calls with an evaluator: alone, after a verify command, and with each guard rail whose path it meets (the
 * round timeout and the time limit stop it, the idle watch follows a rejection, its cost counts), one rail each as
 * for GUARD_RAIL_CALLS; and a run resumed while its evaluator was checking a completion.
 */
export const EVALUATOR_CALLS: readonly InputVariant[] = [
  evaluated(
    'cap 2 and an evaluator',
    { args: { objective: 'Port the parser to Rust', maxRounds: 2 } },
    { cap: 2 },
  ),
  evaluated(
    'cap 2, a verify command and an evaluator',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 2 },
      config: config({ verify: { argv: ['npm', 'test'] } }),
    },
    { cap: 2 },
  ),
  evaluated(
    'cap 2, an evaluator and a round timeout of 30m',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 2 },
      config: config({ roundTimeoutMs: 1_800_000 }),
    },
    { cap: 2 },
  ),
  evaluated(
    'cap 2, an evaluator and a time limit of 2h',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 2 },
      config: config({ maxWallTimeMs: 7_200_000 }),
    },
    { cap: 2 },
  ),
  evaluated(
    'cap 3, an evaluator and an idle limit of 1 round',
    { args: { objective: 'Port the parser to Rust', maxRounds: 3 }, config: config({ maxIdleRounds: 1 }) },
    { cap: 3 },
  ),
  evaluated(
    'cap 3, an evaluator and a cost limit of $2 (a round says $1, an evaluation $0.50)',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 3 },
      config: config({ maxCostUsd: 2 }),
      provider: REPORTS_COST,
      evaluator: REPORTS_COST,
    },
    { cap: 3 },
  ),
  evaluated(
    'cap 2, sandboxed, a verify command and an evaluator (both start their children in the sandbox)',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 2 },
      config: config({ ...SANDBOX, verify: { argv: ['npm', 'test'] } }),
      provider: SANDBOXES,
      evaluator: SANDBOXES,
    },
    { cap: 2 },
  ),
  evaluated(
    "cap 2, resumed while its evaluator checked round 1's completion",
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 2 },
      resume: { round: 1, handoff: EVALUATED_HANDOFF, agentsStarted: 1, evaluating: true },
    },
    { cap: 2 },
  ),
];

/** How long the model's runs that ask wait for an answer: 1h, short beside the model's time limit (2h). */
export const ANSWER_WAIT_MS = 3_600_000;
/** The blocked report a run was waiting on when it stopped (the handoff of an `awaitingAnswer` point). */
export const BLOCKED_HANDOFF = {
  status: 'blocked' as const,
  summary: 'Round 1 found no database to migrate',
  evidence: ['psql: connection refused'],
  nextSteps: [],
  blocker: 'Which database should the migration target?',
};
const asks = (overrides: Partial<RalphConfigInput> = {}) =>
  config({ waitForAnswersMs: ANSWER_WAIT_MS, ...overrides });

/** A call at cap 2 with --ask, resumed from a point taken while round 1's blocker waited, with `changes` made to it. */
const stoppedWhileAsking = (
  name: string,
  changes: Partial<RalphResumePoint>,
  problem: string,
  askConfig: RalphConfig = asks(),
): InputVariant =>
  refused(
    name,
    {
      args: { objective: 'o', maxRounds: 2 },
      config: askConfig,
      resume: { round: 1, handoff: BLOCKED_HANDOFF, agentsStarted: 1, awaitingAnswer: true, ...changes },
    },
    resumeRefusal(problem),
  );

/** Every problem of a resume point taken while a blocked round waited for an answer (`awaitingAnswer`). */
export const REFUSED_ASK_CALLS: readonly InputVariant[] = [
  stoppedWhileAsking(
    'a waiting resume point without --ask',
    {},
    "it stopped while round 1's blocker waited for an answer: resume it with --ask",
    config(),
  ),
  stoppedWhileAsking(
    'a waiting resume point at the round cap',
    { round: 2, agentsStarted: 2 },
    'its blocked round (2) must be a whole number from 1 to below the round cap 2',
  ),
  stoppedWhileAsking(
    'a waiting resume point before any round',
    { round: 0, agentsStarted: 0 },
    'its blocked round (0) must be a whole number from 1 to below the round cap 2',
  ),
  stoppedWhileAsking(
    'a waiting resume point with fewer children than rounds',
    { agentsStarted: 0 },
    'its children started (0) must be a whole number of at least its finished rounds',
  ),
  stoppedWhileAsking(
    'a waiting resume point whose report is not blocked',
    { handoff: RESUMED_HANDOFF },
    'the report whose blocker waited for an answer is not a blocked report the rules accept',
  ),
];

/**
 * Accepted calls that ask a person (`--ask`, waiting 1h): alone at cap 2 (a blocked round 1 waits, a blocked round 2
 * at the cap ends the run), at cap 3 (an answered round may block and wait again), with the time limit (it runs out
 * while the run waits), with a cost limit the first round spends (blocked then ends the run, as without --ask), and
 * resumed while it waited.
 */
export const ASK_CALLS: readonly InputVariant[] = [
  call(
    'cap 2 and --ask',
    { args: { objective: 'Port the parser to Rust', maxRounds: 2 }, config: asks() },
    { cap: 2 },
  ),
  call(
    'cap 3 and --ask',
    { args: { objective: 'Port the parser to Rust', maxRounds: 3 }, config: asks() },
    { cap: 3 },
  ),
  call(
    'cap 2, --ask and a time limit of 2h',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 2 },
      config: asks({ maxWallTimeMs: 7_200_000 }),
    },
    { cap: 2 },
  ),
  call(
    'cap 2, --ask and a cost limit of $1 (every round says it cost $1)',
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 2 },
      config: asks({ maxCostUsd: 1 }),
      provider: REPORTS_COST,
    },
    { cap: 2 },
  ),
  call(
    "cap 2 and --ask, resumed while round 1's blocker waited for an answer",
    {
      args: { objective: 'Port the parser to Rust', maxRounds: 2 },
      config: asks(),
      resume: { round: 1, handoff: BLOCKED_HANDOFF, agentsStarted: 1, awaitingAnswer: true },
    },
    { cap: 2 },
  ),
];

/** The machine input of a call, mapped by the engine's own mapping (with the evaluator the variant declares). */
export function machineInputFor(
  variant: InputVariant,
  provider: SubagentProvider | undefined,
  evaluator: SubagentProvider | undefined = declaredEvaluator(variant),
): RalphMachineInput {
  return machineInputOf(
    {
      args: variant.args,
      agent: variant.agent,
      config: variant.config,
      provider,
      // Only with an evaluator, as a host that has none passes it.
      ...(variant.evaluator === undefined ? {} : { evaluator }),
    },
    MODEL_RUN_ID,
    variant.maxTotalAgents,
    variant.resume,
  );
}

/** A provider that only declares what `declared` says; for the model, which never starts a child. */
function declared(
  name: string,
  declared: InputVariant['provider'] | undefined,
): SubagentProvider | undefined {
  if (declared === undefined || !declared.registered) return undefined;
  return {
    name,
    capabilities: declared.capabilities,
    start: () => Promise.reject(new Error('the model never starts a child')),
  };
}

/** The variant's provider as it declares itself. */
export const declaredProvider = (variant: InputVariant): SubagentProvider | undefined =>
  declared(PROVIDER_NAME, variant.provider);

/** The variant's evaluator provider as it declares itself (undefined: none, or not registered). */
export const declaredEvaluator = (variant: InputVariant): SubagentProvider | undefined =>
  declared(EVALUATOR_NAME, variant.evaluator);
