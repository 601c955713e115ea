import { describe, expect, it } from 'vitest';
import {
  type ChildRequest,
  type ChildStartOptions,
  type CommandChildRun,
  commandProvider,
  createProviderRegistry,
  createRalphEngine,
  createRalphTool,
  normalizeConfig,
  providerNotRegistered,
  type RalphProgressEvent,
  type RalphRun,
  type SubagentProvider,
  WORKFLOW_CANCELLED,
  workflowFailed,
} from '../../src/index.js';
import { cleanEnv, isRunning, type Scratch, until, useScratch } from '../support/processes.js';
import {
  agentIn,
  completeAt,
  continueAt,
  type Expected,
  expectNothingLeft,
  expectOutcome,
  FAULT_AGENT,
  faultTool,
  type Settled,
  settled,
  useOwnTmpdir,
} from './harness.js';

const tmp = useOwnTmpdir();
const s = useScratch();

/** A row: something a host or a provider does around a run, the calls it makes, and how each call ends. */
interface LifecycleRow {
  name: string;
  /** Makes the row's calls, in order, and returns how each ended. */
  calls(s: Scratch): Promise<Settled[]>;
  expect: Expected[];
  /** How many processes the fakes logged, or the most they may have (a start cut short may or may not spawn). */
  processes: number | { atMost: number };
}

const objective = { objective: 'survive the host' };
const startFailed = (name: string, round: number, why: string) =>
  workflowFailed(`subagent provider "${name}" failed to start round ${round}: ${why}`);
const NOT_A_CHILD_RUN = 'provider.start did not return a child run ({ id, report })';

/** A fault.sh command provider: the real thing a misbehaving provider below wraps or stands beside. */
const faultProvider = (s: Scratch, plan: string[]) =>
  commandProvider({
    command: FAULT_AGENT,
    baseEnv: cleanEnv(),
    env: { FIXTURE_PID_LOG: s.pidLog, FIXTURE_PLAN: plan.join(',') },
  });

/** A provider registered as `name` whose start does `start`; its call through the tool, settled. */
async function callWithProvider(
  s: Scratch,
  name: string,
  start: (request: ChildRequest, options: ChildStartOptions) => unknown,
): Promise<Settled[]> {
  const providers = createProviderRegistry();
  const provider = {
    name,
    capabilities: { structuredOutput: true, inheritsParentContext: false },
    start,
  } as SubagentProvider;
  providers.register(provider);
  const tool = createRalphTool({ subagentProvider: name }, { providers });
  return [await settled(tool.execute(objective, { agent: agentIn(s.workspace) }))];
}

/** A run through the engine API itself, on fault.sh with `plan`. */
function engineRun(s: Scratch, plan: string[], signal?: AbortSignal): RalphRun {
  return createRalphEngine().start(
    {
      args: objective,
      agent: agentIn(s.workspace),
      config: normalizeConfig({ subagentProvider: 'command' }),
      provider: faultProvider(s, plan),
    },
    signal === undefined ? {} : { signal },
  );
}

const loggedAtLeast = (s: Scratch, count: number) =>
  until(async () => (await s.pids()).length >= count, `${count} processes to be in place`);

const rows: LifecycleRow[] = [
  {
    name: "a provider whose start throws synchronously: the workflow fails, naming the provider's error",
    calls: (s) =>
      callWithProvider(s, 'throws', () => {
        throw new Error('sync boom');
      }),
    expect: [
      {
        code: 'workflow-failed',
        message: startFailed('throws', 1, 'sync boom'),
        round: 1,
        lastHandoff: null,
      },
    ],
    processes: 0,
  },
  {
    name: 'a provider whose start rejects',
    calls: (s) => callWithProvider(s, 'rejects', async () => Promise.reject(new Error('async boom'))),
    expect: [
      {
        code: 'workflow-failed',
        message: startFailed('rejects', 1, 'async boom'),
        round: 1,
        lastHandoff: null,
      },
    ],
    processes: 0,
  },
  ...(
    [
      ['an empty object', async () => ({})],
      ['a string, synchronously', () => 'garbage'],
      ['null', async () => null],
      ['a run without a report', async () => ({ id: 'child-1' })],
      ['a run whose id is not a string', async () => ({ id: 7, report: Promise.resolve({}) })],
    ] as const
  ).map(
    ([what, start]): LifecycleRow => ({
      name: `a provider whose start returns garbage (${what}): the workflow fails`,
      calls: (s) => callWithProvider(s, 'garbage', start),
      expect: [
        {
          code: 'workflow-failed',
          message: startFailed('garbage', 1, NOT_A_CHILD_RUN),
          round: 1,
          lastHandoff: null,
        },
      ],
      processes: 0,
    }),
  ),
  {
    name: 'a command provider whose program does not exist: the workflow fails',
    calls: async (s) => {
      const providers = createProviderRegistry();
      providers.register(commandProvider({ command: ['/nonexistent/agent'], baseEnv: cleanEnv() }));
      const tool = createRalphTool({ subagentProvider: 'command' }, { providers });
      return [await settled(tool.execute(objective, { agent: agentIn(s.workspace) }))];
    },
    expect: [
      {
        code: 'workflow-failed',
        // The provider's own words after the colon; what matters is that they keep the system's reason.
        message: expect.stringMatching(
          /^Ralph workflow failed: subagent provider "command" failed to start round 1: .*\/nonexistent\/agent.*ENOENT/,
        ),
        round: 1,
        lastHandoff: null,
      },
    ],
    processes: 0,
  },
  {
    name: 'a provider that starts round 1 and throws on round 2: the workflow fails with the last handoff',
    calls: (s) => {
      const real = faultProvider(s, ['continue']);
      return callWithProvider(s, 'flaky', (request, options) => {
        if (request.round === 2) throw new Error('the agent quota is used up');
        return real.start(request, options);
      });
    },
    expect: [
      {
        code: 'workflow-failed',
        message: startFailed('flaky', 2, 'the agent quota is used up'),
        round: 2,
        lastHandoff: continueAt(1),
      },
    ],
    processes: 1,
  },
  {
    name: 'a provider unregistered while a run is in flight: the run goes on, the next call is refused',
    calls: async (s) => {
      const { tool, unregister } = faultTool(s, { plan: ['continue', 'complete'] });
      const onProgress = (event: RalphProgressEvent) => {
        if (event.type === 'child-started' && event.round === 1) unregister();
      };
      const first = await settled(tool.execute(objective, { agent: agentIn(s.workspace), onProgress }));
      const next = await settled(tool.execute(objective, { agent: agentIn(s.workspace) }));
      return [first, next];
    },
    expect: [
      { status: 'complete', rounds: 2, report: completeAt(2) },
      { code: 'refused', message: providerNotRegistered('command') },
    ],
    processes: 2,
  },
  {
    name: 'the turn aborted before the call: nothing starts',
    calls: async (s) => {
      const { tool } = faultTool(s, { plan: ['complete'] });
      return [
        await settled(tool.execute(objective, { agent: agentIn(s.workspace), signal: AbortSignal.abort() })),
      ];
    },
    expect: [{ code: 'cancelled', message: WORKFLOW_CANCELLED }],
    processes: 0,
  },
  {
    name: 'an engine run started with an aborted signal: no machine, no child',
    calls: async (s) => {
      const run = engineRun(s, ['complete'], AbortSignal.abort());
      expect(run.actor).toBeNull();
      run.cancel();
      run.dispose();
      return [await settled(run.result)];
    },
    expect: [{ code: 'cancelled', message: WORKFLOW_CANCELLED }],
    processes: 0,
  },
  {
    name: "aborted while the command provider is starting round 2's child: the child it spawns is stopped",
    calls: async (s) => {
      const real = faultProvider(s, ['continue', 'hang']);
      const turn = new AbortController();
      const spawned: number[] = [];
      const providers = createProviderRegistry();
      providers.register({
        ...real,
        name: 'mid-start',
        start(request, options) {
          const starting = real.start(request, options) as Promise<CommandChildRun>;
          starting.then(
            (run) => spawned.push(run.pid),
            () => {},
          );
          // The real start is under way (its folder and spawn are still to come) when the turn is stopped.
          if (request.round === 2) turn.abort();
          return starting;
        },
      });
      const tool = createRalphTool({ subagentProvider: 'mid-start' }, { providers });
      const result = await settled(
        tool.execute(objective, { agent: agentIn(s.workspace), signal: turn.signal }),
      );
      // A child spawned after the abort (it may die before it logs its pid) is gone too.
      expect(spawned.filter(isRunning)).toEqual([]);
      return [result];
    },
    expect: [{ code: 'cancelled', message: WORKFLOW_CANCELLED, round: 2, lastHandoff: continueAt(1) }],
    processes: { atMost: 2 },
  },
  {
    name: "aborted as round 2 begins, before the provider is asked: cancelled with round 1's handoff",
    calls: async (s) => {
      const { tool } = faultTool(s, { plan: ['continue', 'complete'] });
      const turn = new AbortController();
      const onProgress = (event: RalphProgressEvent) => {
        if (event.type === 'round-started' && event.round === 2) turn.abort();
      };
      return [
        await settled(
          tool.execute(objective, { agent: agentIn(s.workspace), signal: turn.signal, onProgress }),
        ),
      ];
    },
    expect: [{ code: 'cancelled', message: WORKFLOW_CANCELLED, round: 2, lastHandoff: continueAt(1) }],
    processes: { atMost: 2 },
  },
  {
    name: 'aborted while awaiting the report: cancelled once the child is gone',
    calls: async (s) => {
      const turn = new AbortController();
      const run = engineRun(s, ['continue', 'hang'], turn.signal);
      await loggedAtLeast(s, 2);
      turn.abort();
      return [await settled(run.result)];
    },
    expect: [{ code: 'cancelled', message: WORKFLOW_CANCELLED, round: 2, lastHandoff: continueAt(1) }],
    processes: 2,
  },
  {
    name: 'aborted after the call settled: no effect',
    calls: async (s) => {
      const { tool } = faultTool(s, { plan: ['complete'] });
      const turn = new AbortController();
      const call = tool.execute(objective, { agent: agentIn(s.workspace), signal: turn.signal });
      const first = await settled(call);
      turn.abort();
      return [first, await settled(call)];
    },
    expect: [
      { status: 'complete', rounds: 1, report: completeAt(1) },
      { status: 'complete', rounds: 1, report: completeAt(1) },
    ],
    processes: 1,
  },
  {
    name: 'an engine run cancelled and disposed after it settled: no effect',
    calls: async (s) => {
      const turn = new AbortController();
      const run = engineRun(s, ['continue', 'complete'], turn.signal);
      const first = await settled(run.result);
      turn.abort();
      run.cancel();
      run.dispose();
      run.dispose();
      expect(run.actor?.getSnapshot().value).toBe('complete');
      return [first, await settled(run.result)];
    },
    expect: [
      { status: 'complete', rounds: 2, report: completeAt(2) },
      { status: 'complete', rounds: 2, report: completeAt(2) },
    ],
    processes: 2,
  },
  {
    name: 'cancel twice while awaiting the report: cancelled once',
    calls: async (s) => {
      const run = engineRun(s, ['hang']);
      await loggedAtLeast(s, 1);
      run.cancel();
      run.cancel();
      const result = await settled(run.result);
      run.cancel();
      return [result];
    },
    expect: [{ code: 'cancelled', message: WORKFLOW_CANCELLED, round: 1, lastHandoff: null }],
    processes: 1,
  },
  {
    name: 'dispose() twice while awaiting the report: the run is cancelled, once',
    calls: async (s) => {
      const run = engineRun(s, ['continue', 'hang']);
      await loggedAtLeast(s, 2);
      run.dispose();
      run.dispose();
      const result = await settled(run.result);
      run.dispose();
      return [result];
    },
    expect: [{ code: 'cancelled', message: WORKFLOW_CANCELLED, round: 2, lastHandoff: continueAt(1) }],
    processes: 2,
  },
  {
    name: 'an abort and a cancel of the same run, then dispose(): cancelled once',
    calls: async (s) => {
      const turn = new AbortController();
      const run = engineRun(s, ['hang'], turn.signal);
      await loggedAtLeast(s, 1);
      turn.abort();
      run.cancel();
      run.dispose();
      return [await settled(run.result)];
    },
    expect: [{ code: 'cancelled', message: WORKFLOW_CANCELLED, round: 1, lastHandoff: null }],
    processes: 1,
  },
];

describe('the fault matrix: providers and hosts misbehave around a run, and each call ends as the contract says', () => {
  for (const row of rows)
    it(row.name, async () => {
      const results = await row.calls(s);

      expect(results).toHaveLength(row.expect.length);
      for (const [i, result] of results.entries()) expectOutcome(result, row.expect[i] as Expected);
      const logged = (await s.pids()).length;
      if (typeof row.processes === 'number') expect(logged).toBe(row.processes);
      else expect(logged).toBeLessThanOrEqual(row.processes.atMost);
      await expectNothingLeft(s, tmp);
    });
});
