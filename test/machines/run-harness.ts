import { type AnyActorRef, createActor, fromPromise, SimulatedClock, waitFor } from 'xstate';
import { stoppablePromise } from '../../src/actors/stoppable-promise.js';
import type { AnswerOutcome, RalphQuestion } from '../../src/contract/answers.js';
import type {
  ChildRequest,
  GuardRails,
  RalphProgressEvent,
  RalphReport,
  VerifyOutcome,
} from '../../src/contract/types.js';
import type { RalphUsage } from '../../src/contract/usage.js';
import {
  type ChildStarted,
  type ChildStartedEvent,
  type EvaluationOutcome,
  type FingerprintRequest,
  type RalphMachineInput,
  type RalphOutput,
  type RoundLimit,
  type RoundOutcome,
  type RoundRef,
  ralphMachine,
  type VerifyRequest,
} from '../../src/machines/ralph.machine.js';

// A run of the real machine in memory, for the fast unit tests Stryker runs against every mutant: its actors are
// provided from a script (what each round's child does, what each fingerprint and verify command gives), its timers
// run on a simulated clock the test moves, and every progress event it emits is kept in order.

/** What one round's child does: reports (an output and what it said it used), hits a limit, fails, or never ends. */
export type ScriptedRound =
  | { output: unknown; usage?: RalphUsage | null }
  | { limit: RoundLimit; usage?: RalphUsage | null }
  | { fails: unknown }
  | 'hangs';

/** What one evaluator does: answers (its output, what it said it used, what it changed), fails, or never ends. */
export type ScriptedVerdict =
  | { output: unknown; usage?: RalphUsage | null; changedFiles?: string[] }
  | { fails: unknown }
  | 'hangs';

/** What the run's actors do, in order. */
export interface RunScript {
  rounds?: ScriptedRound[];
  fingerprints?: string[];
  verifies?: VerifyOutcome[];
  verdicts?: ScriptedVerdict[];
  /** What each wait for a person's answer gives, in order: an outcome, a failure, or nothing ever. */
  answers?: (AnswerOutcome | { fails: unknown } | 'hangs')[];
}

/** An evaluator provider as the machine is told of it: registered, structured, fresh, reporting cost. */
export const evaluatorSnapshot = (overrides: Partial<RalphMachineInput['provider']> = {}) => ({
  name: 'judge',
  registered: true,
  structuredOutput: true,
  inheritsParentContext: false,
  reportsCost: true,
  ...overrides,
});

/** A report the rules accept, with the given status. */
export const report = (status: RalphReport['status'], summary = `${status} round`): RalphReport => ({
  status,
  summary,
  evidence: ['checked'],
  nextSteps: status === 'continue' ? ['go on'] : [],
  blocker: status === 'blocked' ? 'cannot go on' : null,
});

/** An input a reference run accepts: a non-empty objective, 3 rounds, a capable provider that reports cost. */
export const baseInput = (overrides: Partial<RalphMachineInput> = {}): RalphMachineInput => ({
  runId: 'run-1',
  args: { objective: 'Make the tests pass', maxRounds: 3 },
  agent: { id: 'caller', cwd: '/workspace' },
  provider: {
    name: 'scripted',
    registered: true,
    structuredOutput: true,
    inheritsParentContext: false,
    reportsCost: true,
  },
  maxRounds: 10,
  maxHandoffChars: 20_000,
  terminationGraceMs: 100,
  maxTotalAgents: 50,
  ...overrides,
});

const nextOf = <T>(queue: T[], what: string): T => {
  const next = queue.shift();
  if (next === undefined) throw new Error(`the script has no more ${what}`);
  return next;
};

const never = () => new Promise<never>(() => {});

/** Every guard rail off, written out. */
export const railsOff = (): GuardRails => ({
  roundTimeoutMs: null,
  maxWallTimeMs: null,
  verify: null,
  maxIdleRounds: null,
});

/** A scripted round has no child to abort. */
const noStop = () => {};

/** Starts a run of the machine with its actors scripted, but for those named `unprovided` (the machine's own). */
export function startRun(input: RalphMachineInput, script: RunScript = {}, unprovided: string[] = []) {
  const rounds = [...(script.rounds ?? [])];
  const fingerprints = [...(script.fingerprints ?? [])];
  const verifies = [...(script.verifies ?? [])];
  const verdicts = [...(script.verdicts ?? [])];
  const answers = [...(script.answers ?? [])];
  const questions: RalphQuestion[] = [];
  let evaluation: ScriptedVerdict | undefined;
  const actors = {
    runRound: stoppablePromise<RoundOutcome, ChildRequest>(async (request, tell) => {
      const round = nextOf(rounds, 'rounds');
      tell({ type: 'CHILD_STARTED', childId: `child-${request.round}` } as ChildStartedEvent);
      if (round === 'hangs') return never();
      if ('fails' in round) throw round.fails;
      if ('limit' in round) return { output: undefined, usage: round.usage ?? null, limit: round.limit };
      return { output: round.output, usage: round.usage ?? null };
    }, noStop),
    awaitChildStopped: fromPromise<void, RoundRef>(async () => {}),
    awaitVerifyStopped: fromPromise<void, RoundRef>(async () => {}),
    runVerify: fromPromise<VerifyOutcome, VerifyRequest>(async () => nextOf(verifies, 'verify outcomes')),
    fingerprintWorkspace: fromPromise<string, FingerprintRequest>(async () =>
      nextOf(fingerprints, 'fingerprints'),
    ),
    startEvaluator: fromPromise<ChildStarted, ChildRequest>(async ({ input: request }) => {
      evaluation = nextOf(verdicts, 'verdicts');
      return { childId: `evaluator-${request.round}` };
    }),
    awaitVerdict: fromPromise<EvaluationOutcome, RoundRef>(async () => {
      const verdict = evaluation;
      if (verdict === 'hangs' || verdict === undefined) return never();
      if ('fails' in verdict) throw verdict.fails;
      return {
        output: verdict.output,
        usage: verdict.usage ?? null,
        changedFiles: verdict.changedFiles ?? [],
      };
    }),
    awaitEvaluatorStopped: fromPromise<void, RoundRef>(async () => {}),
    awaitAnswer: fromPromise<AnswerOutcome, RalphQuestion>(async ({ input: question }) => {
      questions.push(question);
      const answer = nextOf(answers, 'answers');
      if (answer === 'hangs') return never();
      if ('fails' in answer) throw answer.fails;
      return answer;
    }),
  };
  const clock = new SimulatedClock();
  for (const name of unprovided) delete actors[name as keyof typeof actors];
  const machine = ralphMachine.provide({ actors });
  const actor = createActor(machine, { input, clock });
  const events: RalphProgressEvent[] = [];
  actor.on('*', (event) => events.push(event as RalphProgressEvent));
  actor.start();
  /** The run's outcome, once it settled. */
  const outcome = async (): Promise<RalphOutput> => {
    const done = await waitFor(actor as AnyActorRef, (snapshot) => snapshot.status !== 'active');
    if (done.status === 'error') throw done.error;
    return done.output as RalphOutput;
  };
  /** Waits until the run is in the state at this path (`running.waitingForLimit`). */
  const reaches = (path: string) =>
    waitFor(actor as AnyActorRef, (snapshot) => snapshot.matches(path) || snapshot.status !== 'active');
  return { actor, clock, events, outcome, reaches, questions };
}

/** The progress events of one type a run emitted, in order. */
export const eventsOf = <T extends RalphProgressEvent['type']>(events: RalphProgressEvent[], type: T) =>
  events.filter((event): event is Extract<RalphProgressEvent, { type: T }> => event.type === type);
