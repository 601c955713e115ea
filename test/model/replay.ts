import { expect } from 'vitest';
import {
  type AnyTransitionDefinition,
  createActor,
  fromPromise,
  type PromiseActorLogic,
  SimulatedClock,
  toPromise,
} from 'xstate';
import { createChildRoundActors } from '../../src/actors/child-round.js';
import {
  createEvaluatorActors,
  runEvaluators,
  type WorkspaceWatch,
} from '../../src/actors/evaluator-round.js';
import type { AnswerOutcome, RalphQuestion } from '../../src/contract/answers.js';
import { renderEvaluatorPrompt } from '../../src/contract/evaluator-prompt.js';
import { verdictJsonSchema } from '../../src/contract/evaluator-verdict.js';
import { renderRoundPrompt } from '../../src/contract/prompt.js';
import { reportJsonSchema } from '../../src/contract/round-report.js';
import type {
  ChildRequest,
  RalphEnvelope,
  RalphProgressEvent,
  VerifyOutcome,
} from '../../src/contract/types.js';
import { stateKey } from '../../src/inspect/recording-format.js';
import {
  type EvaluationOutcome,
  type FingerprintRequest,
  KILL_MARGIN_MS,
  type RoundOutcome,
  type RoundRef,
  ralphMachine,
  type VerifyRequest,
} from '../../src/machines/ralph.machine.js';
import { renderResultText } from '../../src/render/result-text.js';
import { type ControllableProvider, createControllableProvider } from './controllable-provider.js';
import { type Exercised, exercisedBy } from './coverage.js';
import {
  CALLER,
  EVALUATOR_NAME,
  type InputVariant,
  MODEL_RUN_ID,
  machineInputFor,
  PROVIDER_NAME,
} from './input-variants.js';
import { expectedEnd, expectedOffers, expectedTags } from './oracle.js';
import {
  describeEvent,
  EVENT,
  type ModelEvent,
  offeredEvents,
  type RalphPath,
  type RalphSnapshot,
  START_FAILED,
  takes,
} from './ralph-model.js';

/** Lets every pending promise reaction run: the bridge and the machine settle through promises alone. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A host's own stop actor around the bridge's: it waits until the bridge saw the child stop, then fails when told
 * to. The bridge's stop never fails, so a failing stop is only reachable this way, by a host that interprets the
 * machine with actors of its own; the machine must still settle cancelled.
 */
function hostStop(bridgeStop: PromiseActorLogic<void, RoundRef>, failure: () => string | null) {
  return fromPromise<void, RoundRef>(async ({ input }) => {
    await toPromise(createActor(bridgeStop, { input }).start());
    const message = failure();
    if (message !== null) throw new Error(message);
  });
}

/** A promise the replay settles by hand, and whether it has. */
interface Pending<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: Error): void;
}

function pending<T>(): Pending<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/** One run of the verify command as the replay drives it: its request, its abort, how it ends and stops. */
interface DrivenVerify {
  request: VerifyRequest;
  signal: AbortSignal;
  outcome: Pending<VerifyOutcome>;
  stopped: Pending<void>;
}

/**
 * The guard rails' actors, driven by the replay: each verify command and each fingerprint settles when the path says.
 * (The real ones run a command and read a workspace; the CLI tests run those through the installed binary.)
 */
function drivenGuardRails() {
  const verifies: DrivenVerify[] = [];
  const fingerprints: { request: FingerprintRequest; result: Pending<string> }[] = [];
  const latest = <T>(list: T[], what: string): T => {
    const item = list.at(-1);
    if (item === undefined) throw new Error(`no ${what} was ever started`);
    return item;
  };
  return {
    verifies,
    fingerprints,
    latestVerify: () => latest(verifies, 'verify command'),
    latestFingerprint: () => latest(fingerprints, 'fingerprint'),
    actors: {
      runVerify: fromPromise<VerifyOutcome, VerifyRequest>(({ input, signal }) => {
        const run: DrivenVerify = { request: input, signal, outcome: pending(), stopped: pending() };
        verifies.push(run);
        return run.outcome.promise;
      }),
      awaitVerifyStopped: fromPromise<void, RoundRef>(
        () => latest(verifies, 'verify command').stopped.promise,
      ),
      fingerprintWorkspace: fromPromise<string, FingerprintRequest>(({ input }) => {
        const result = pending<string>();
        fingerprints.push({ request: input, result });
        return result.promise;
      }),
    },
  };
}

/** One wait for a person's answer as the replay drives it: the question it was asked, its abort, how it settles. */
interface DrivenAnswer {
  question: RalphQuestion;
  signal: AbortSignal;
  outcome: Pending<AnswerOutcome>;
  /** The path settled it (an answer, a give-up, the source's own timeout or its failure). */
  settledByPath: boolean;
}

/**
 * The answer source, driven by the replay: each question waits until the path answers it, gives up, times out or
 * fails. (The engine's sources, a terminal, a folder, a page, a durable message, are tested where they are.)
 */
function drivenAnswers() {
  const asked: DrivenAnswer[] = [];
  return {
    asked,
    latest: () => {
      const wait = asked.at(-1);
      if (wait === undefined) throw new Error('no question was ever asked');
      return wait;
    },
    awaitAnswer: fromPromise<AnswerOutcome, RalphQuestion>(({ input, signal }) => {
      const wait: DrivenAnswer = { question: input, signal, outcome: pending(), settledByPath: false };
      asked.push(wait);
      return wait.outcome.promise;
    }),
  };
}

/**
 * The workspace as the evaluator actors see it, driven by the replay: a snapshot is taken at once, and what differs
 * after an evaluator is what the path's verdict says it changed (the real watch, a per-file snapshot, is tested on
 * real folders in test/workspace; the CLI tests run it through the installed binary).
 */
function drivenWatch() {
  /** Where each snapshot was taken. */
  const snapshots: string[] = [];
  /** What the next comparison finds changed (set by the replay before each verdict). */
  const next = { changes: [] as string[] };
  const watch: WorkspaceWatch<number> = {
    snapshot: async (cwd) => snapshots.push(cwd),
    changed: () => [...next.changes],
  };
  return { snapshots, next, watch };
}

/** Whether a snapshot is in the state at this dot path (`running.round`) or in one of its substates. */
const isIn = (snapshot: RalphSnapshot, path: string): boolean =>
  `${stateKey(snapshot.value)}.`.startsWith(`${path}.`);

/**
 * The real snapshot's tags are the design's for its state, and they tell the truth about the provider: a host sees
 * `childRunning` exactly while the provider has a start or a child pending (a child abandoned past the cancel
 * deadline aside: the run is settled by then), and `settled` exactly once the run is done.
 */
function expectTags(real: RalphSnapshot, childrenRunning: number, where: string) {
  expect([...real.tags].sort(), `${where}: tags`).toEqual(expectedTags(stateKey(real.value)));
  expect(real.hasTag('childRunning'), `${where}: tagged childRunning while a child runs`).toBe(
    childrenRunning > 0 && real.status === 'active',
  );
  expect(real.hasTag('settled'), `${where}: tagged settled once the run is done`).toBe(
    real.status === 'done',
  );
}

/** The real snapshot agrees with the model's at one step of a path. */
function expectStep(real: RalphSnapshot, model: RalphSnapshot, agentsReallyStarted: number, where: string) {
  // The review's transitions are eventless: no step of a path, and so no CANCEL, can find the run there.
  expect(isIn(model, 'running.reviewingReport'), `${where}: the model rests where reports are reviewed`).toBe(
    false,
  );
  expect(real.value, `${where}: state`).toEqual(model.value);
  expect(real.context.round, `${where}: rounds started`).toBe(model.context.round);
  expect(real.context.agentsStarted, `${where}: agents started`).toBe(model.context.agentsStarted);
  expect(agentsReallyStarted, `${where}: children the provider started`).toBe(model.context.agentsStarted);
  expect(real.context, `${where}: context`).toEqual(model.context);
  // The model is walked on the machine itself; what may happen next is checked against the design instead.
  const next = offeredEvents(real)
    .filter((event) => takes(real, event))
    .map(describeEvent);
  const { outOfTime, fingerprint } = real.context;
  const { guardRails } = real.context.call;
  const rails = {
    roundTimeout: guardRails.roundTimeoutMs !== null,
    limitOffered: real.context.limitWaits < 1,
    wallClockRunning: guardRails.maxWallTimeMs !== null && !outOfTime,
    fingerprinted: fingerprint !== null,
    evaluated: real.context.evaluation !== undefined,
    asks: guardRails.waitForAnswersMs !== undefined,
    rejectedBefore: (real.context.evaluation?.last ?? null) !== null,
  };
  expect(next.sort(), `${where}: what can happen next`).toEqual(
    expectedOffers(stateKey(real.value), rails).sort(),
  );
}

/** What a host renders for an envelope, checked against the reference's wording. */
function expectRenderedText(envelope: RalphEnvelope, maxResultChars: number) {
  const text = renderResultText(envelope, maxResultChars);
  const { status, rounds, report } = envelope.result;
  const counted = rounds === 1 ? '1 round' : `${rounds} rounds`;
  expect(text.length).toBeLessThanOrEqual(maxResultChars);
  expect(text).toContain(JSON.stringify(report, null, 2));
  expect(text).toContain(`Rounds: ${rounds}`);
  const { limit, verifiedBy, evaluation, question } = envelope.result;
  const [label, note] = text.split('\n');
  if (question !== undefined) {
    // A run that asked and got no answer says why it ended blocked (contract/answer-messages.ts, spelled out here).
    const blocker = `round ${question.round}'s blocker`;
    const why = {
      'timed-out': `Nobody answered ${blocker} within 1h; the run ended blocked.`,
      'given-up': `A person chose not to answer ${blocker}; the run ended blocked.`,
      'time-limit': `The run's time limit ran out while it waited for an answer to ${blocker}; the run ended blocked.`,
      unavailable: `Round ${question.round}'s blocker could not be put to a person (${question.detail}); the run ended blocked.`,
    };
    expect(note).toBe(why[question.reason]);
  } else if (limit?.kind === 'time' && limit.unevaluatedRound !== undefined)
    expect(note).toBe(
      `Round ${limit.unevaluatedRound} reported the objective complete, but the time ran out before the evaluator gave its verdict: the completion was not accepted.`,
    );
  else if (status === 'budget-limited' && evaluation?.verdict === 'reject' && evaluation.round === rounds)
    expect(note).toBe(
      `The completion reported in round ${evaluation.round} was rejected by an independent evaluator (${evaluation.findings.length} findings); the final report carries its findings.`,
    );
  if (status === 'complete' && evaluation !== undefined) {
    const verified = verifiedBy === undefined ? '' : ', the verify command `npm test` confirmed it (exit 0)';
    expect(label).toBe(
      `Ralph complete: the worker reported the objective complete after ${counted}${verified}, and an independent evaluator (${EVALUATOR_NAME}) accepted it.`,
    );
    expect(text).not.toContain('not independent evaluation');
  } else if (status === 'budget-limited' && limit?.kind === 'time')
    expect(text.split('\n')[0]).toBe('Ralph reached its 2h time limit; the worker reported work remaining.');
  else if (status === 'budget-limited' && limit?.kind === 'idle')
    expect(text.split('\n')[0]).toBe(
      limit.maxIdleRounds === 1
        ? 'Ralph reached its 1 idle round limit; the worker reported work remaining, but the workspace did not change in the last round.'
        : `Ralph reached its ${limit.maxIdleRounds} idle rounds limit; the worker reported work remaining, but the workspace did not change in the last ${limit.maxIdleRounds} rounds.`,
    );
  else if (status === 'budget-limited' && limit?.kind === 'cost')
    expect(text.split('\n')[0]).toBe(
      `Ralph reached its $${limit.maxCostUsd.toFixed(2)} cost limit ($${limit.spentUsd.toFixed(2)} spent); the worker reported work remaining.`,
    );
  else if (status === 'budget-limited')
    expect(text.split('\n')[0]).toBe(
      `Ralph reached its ${counted} limit; the worker reported work remaining.`,
    );
  else if (verifiedBy !== undefined) {
    expect(text.split('\n')[0]).toBe(
      `Ralph complete: the worker reported the objective complete after ${counted}, and the verify command \`npm test\` confirmed it (exit 0).`,
    );
    expect(text).not.toContain('not independent evaluation');
  } else {
    expect(text.split('\n')[0]).toContain(`after ${counted}`);
    expect(text).toContain('Completion and blockers are worker reports, not independent evaluation.');
  }
}

/**
 * Replays one path of the model against the real machine, run through the real bridge with a provider the test
 * drives, on a simulated clock. Each model event becomes what causes it for real: the provider starting or failing
 * to start a child, the child reporting or failing, the host cancelling, the child stopping, the clock passing the
 * cancel deadline. After each event the real snapshot must equal the model's; at the end the outcome must be what
 * the seed rules say (`expectedEnd`), the provider must have been asked exactly for the expected rounds, and no
 * child may still run unless the path abandoned it past the deadline.
 */
export async function replayPath(variant: InputVariant, path: RalphPath): Promise<Exercised> {
  const provider = variant.provider.registered
    ? createControllableProvider(PROVIDER_NAME, variant.provider.capabilities)
    : undefined;
  // The evaluator is a second provider the test drives, run through the engine's own evaluator actors.
  const evaluator =
    variant.evaluator?.registered === true
      ? createControllableProvider(EVALUATOR_NAME, variant.evaluator.capabilities)
      : undefined;
  const input = machineInputFor(variant, provider, evaluator);
  const bridge = createChildRoundActors(provider, input.terminationGraceMs, input.sandbox);
  const watch = drivenWatch();
  const evaluations = runEvaluators(evaluator, input.terminationGraceMs, input.sandbox);
  const evaluatorBridge = createEvaluatorActors(() => evaluations, watch.watch);
  let stopFailure: string | null = null;
  let evaluatorStopFailure: string | null = null;
  const hostStopsFail = path.steps.some((step) => step.event.type === EVENT.stopFailed);
  const hostEvaluatorStopsFail = path.steps.some((step) => step.event.type === EVENT.evaluatorStopFailed);
  const driven = drivenGuardRails();
  const answers = drivenAnswers();
  const actors = {
    ...(hostStopsFail
      ? { ...bridge, awaitChildStopped: hostStop(bridge.awaitChildStopped, () => stopFailure) }
      : bridge),
    ...(hostEvaluatorStopsFail
      ? {
          ...evaluatorBridge,
          awaitEvaluatorStopped: hostStop(evaluatorBridge.awaitEvaluatorStopped, () => evaluatorStopFailure),
        }
      : evaluatorBridge),
    ...driven.actors,
    awaitAnswer: answers.awaitAnswer,
  };
  /** Children (rounds' and evaluators') whose start or run is still pending. */
  const running = () => (provider?.running ?? 0) + (evaluator?.running ?? 0);
  /** Moves the simulated clock to a timer of the state the run is in, checking it has not fired 1 ms before. */
  const passTimer = async (delay: number, state: string, where: string) => {
    clock.increment(delay - 1);
    await settle();
    expect(isIn(actor.getSnapshot(), state), `${where}: still in ${state} 1 ms before the timer`).toBe(true);
    clock.increment(1);
  };

  const clock = new SimulatedClock();
  const taken: AnyTransitionDefinition[] = [];
  const progress: RalphProgressEvent[] = [];
  const actor = createActor(ralphMachine.provide({ actors }), {
    input,
    clock,
    // Only machines take microsteps, and the run's only machine is this one.
    inspect: (event) => {
      if (event.type === '@xstate.microstep') taken.push(...event._transitions);
    },
  });
  // Everything the machine emits is a progress event: one wildcard listener, as the engine's, hears them all.
  actor.on('*', (event) => progress.push(event));

  const perform = async (event: ModelEvent, where: string) => {
    const child = () => {
      if (provider === undefined) throw new Error(`${where}: no provider to drive`);
      return provider;
    };
    const judge = (): ControllableProvider => {
      if (evaluator === undefined) throw new Error(`${where}: no evaluator provider to drive`);
      return evaluator;
    };
    switch (event.type) {
      case 'xstate.init':
        actor.start();
        return;
      case EVENT.cancel: {
        const from = stateKey(actor.getSnapshot().value);
        actor.send({ type: 'CANCEL' });
        await settle();
        if (from === 'running.awaitingAnswer')
          expect(answers.latest().signal.aborted, `${where}: the wait for an answer was stopped`).toBe(true);
        else if (from === 'running.verifying')
          expect(driven.latestVerify().signal.aborted, `${where}: the verify command was stopped`).toBe(true);
        else if (from.startsWith('running.evaluating.'))
          expect(judge().children.at(-1)?.signal.aborted, `${where}: the evaluator was aborted`).toBe(true);
        else if (from !== 'running.fingerprinting' && from !== 'running.waitingForLimit')
          expect(child().children.at(-1)?.signal.aborted, `${where}: the child was aborted`).toBe(true);
        return;
      }
      case EVENT.childStarted:
        child().startChild(String(event.childId));
        return;
      case EVENT.roundFailed:
        if (event.variant === START_FAILED) child().failStart(String(event.error));
        else child().failChild(String(event.error));
        return;
      case EVENT.reported:
        {
          const { output, usage, limit } = event.output as RoundOutcome;
          if (limit === undefined) child().report(output, usage);
          else {
            // The provider's own error: recognised when the reset was an hour ahead.
            const now = new Date('2026-12-01T12:00:00.000Z');
            const resetsAt = new Date(now.getTime() + (limit.retryInMs as number));
            child().failChildWith(
              Object.assign(new Error(limit.detail), {
                name: 'UsageLimitError',
                resetsAt,
                retryInMs: limit.retryInMs,
              }),
              usage,
            );
          }
        }
        return;
      case EVENT.childStopped:
        child().stopAborted();
        return;
      case EVENT.stopFailed:
        stopFailure = String(event.error);
        child().stopAborted();
        return;
      case EVENT.cancelDeadline:
        await passTimer(input.terminationGraceMs + KILL_MARGIN_MS, 'cancelling', where);
        return;
      case EVENT.limitWaitOver:
        await passTimer(actor.getSnapshot().context.limitWaitMs as number, 'running.waitingForLimit', where);
        return;
      case EVENT.roundTimedOut:
        await passTimer(input.guardRails?.roundTimeoutMs as number, 'running.round', where);
        return;
      case EVENT.roundStopDeadline:
        await passTimer(input.terminationGraceMs + KILL_MARGIN_MS, 'stoppingRound', where);
        return;
      case EVENT.wallClock:
        // The root's timer runs from the start; on a simulated clock the order of independent timers cannot be
        // chosen freely (moving it 2h on would pass every deadline first), so the replay delivers its event itself.
        // The CLI tests show the real timer stopping a real run.
        actor.send({ type: EVENT.wallClock } as unknown as { type: 'CANCEL' });
        return;
      case EVENT.verified:
        driven.latestVerify().outcome.resolve(event.output as VerifyOutcome);
        return;
      case EVENT.verifyCannotStart:
        driven.latestVerify().outcome.reject(new Error(String(event.error)));
        return;
      case EVENT.verifyStopped:
      case EVENT.verifyStopFailed: {
        const run = driven.latestVerify();
        expect(run.signal.aborted, `${where}: the verify command was stopped`).toBe(true);
        if (event.type === EVENT.verifyStopped) run.stopped.resolve();
        else run.stopped.reject(new Error(String(event.error)));
        return;
      }
      case EVENT.fingerprinted:
        driven.latestFingerprint().result.resolve(String(event.output));
        return;
      case EVENT.fingerprintFailed:
        driven.latestFingerprint().result.reject(new Error(String(event.error)));
        return;
      case EVENT.evaluatorStarted:
        judge().startChild((event.output as { childId: string }).childId);
        return;
      case EVENT.evaluatorStartFailed:
        judge().failStart(String(event.error));
        return;
      case EVENT.verdict: {
        const { output, usage, changedFiles } = event.output as EvaluationOutcome;
        watch.next.changes = changedFiles;
        judge().report(output, usage);
        return;
      }
      case EVENT.evaluatorFailed:
        judge().failChild(String(event.error));
        return;
      case EVENT.evaluatorStopped:
        judge().stopAborted();
        return;
      case EVENT.evaluatorStopFailed:
        evaluatorStopFailure = String(event.error);
        judge().stopAborted();
        return;
      case EVENT.evaluationTimedOut:
        await passTimer(input.guardRails?.roundTimeoutMs as number, 'running.evaluating', where);
        return;
      case EVENT.evaluatorStopDeadline:
        await passTimer(input.terminationGraceMs + KILL_MARGIN_MS, 'stoppingEvaluator', where);
        return;
      case EVENT.answered:
        answers.latest().settledByPath = true;
        answers.latest().outcome.resolve(event.output as AnswerOutcome);
        return;
      case EVENT.answerSourceFailed:
        answers.latest().settledByPath = true;
        answers.latest().outcome.reject(new Error(String(event.error)));
        return;
      case EVENT.answerWaitOver:
        await passTimer(input.guardRails?.waitForAnswersMs as number, 'running.awaitingAnswer', where);
        // The run stopped waiting on its own timer: the source is told to stop too.
        expect(answers.latest().signal.aborted, `${where}: the answer source was stopped`).toBe(true);
        return;
      default:
        throw new Error(`${where}: the replay does not know the event ${event.type}`);
    }
  };

  try {
    for (const [i, step] of path.steps.entries()) {
      const where = `step ${i + 1} (${describeEvent(step.event)})`;
      await perform(step.event, where);
      await settle();
      // A resumed run counts the children its earlier host started, which this provider never saw.
      const before = 'cap' in variant.expected ? (variant.resume?.agentsStarted ?? 0) : 0;
      expectStep(actor.getSnapshot(), step.state, before + (provider?.started ?? 0), where);
      expectTags(actor.getSnapshot(), running(), where);
    }

    const expected = expectedEnd(
      variant,
      path.steps.slice(1).map((step) => step.event),
    );
    const end = actor.getSnapshot();
    expect(end.status, 'whether the run settled').toBe(expected.state === null ? 'active' : 'done');
    if (expected.state !== null) expect(end.value, 'the final state').toBe(expected.state);
    if (expected.output !== null) expect(end.output, 'the outcome').toEqual(expected.output);
    expect(end.context, 'the context at the end').toMatchObject(expected.context);
    expect(progress, 'the progress events').toEqual(expected.progress);

    const requests: ChildRequest[] = expected.rounds.map(({ round, handoff }) => {
      const objective = String((variant.args as { objective: unknown }).objective);
      const maxRounds = end.context.maxRounds;
      return {
        runId: MODEL_RUN_ID,
        round,
        maxRounds,
        objective,
        handoff,
        prompt: renderRoundPrompt({ objective, round, maxRounds, handoff }),
        outputSchema: reportJsonSchema,
        cwd: CALLER.cwd,
        parent: CALLER,
        // The deployment's cap, so a report tool can check a report against it within the round.
        maxHandoffChars: variant.config.maxHandoffChars,
      };
    });
    expect(provider?.children.map((c) => c.request) ?? [], 'what each child was asked').toEqual(requests);
    const evaluatorRequests: ChildRequest[] = expected.evaluations.map(({ round, report }) => {
      const objective = String((variant.args as { objective: unknown }).objective);
      return {
        runId: MODEL_RUN_ID,
        round,
        maxRounds: end.context.maxRounds,
        objective,
        handoff: report,
        // The objective and the report alone: no conversation, no earlier verdict.
        prompt: renderEvaluatorPrompt({ objective, round, report }),
        outputSchema: verdictJsonSchema,
        cwd: CALLER.cwd,
        parent: CALLER,
        maxHandoffChars: variant.config.maxHandoffChars,
        role: 'evaluator',
      };
    });
    expect(evaluator?.children.map((c) => c.request) ?? [], 'what each evaluator was asked').toEqual(
      evaluatorRequests,
    );
    for (const c of evaluator?.children ?? []) {
      expect(c.request.outputSchema, 'each evaluator gets its own copy of the schema').not.toBe(
        verdictJsonSchema,
      );
      expect(c.terminationGraceMs).toBe(variant.config.terminationGraceMs);
    }
    expect(
      answers.asked.map((wait) => wait.question),
      'what each wait for an answer was asked',
    ).toEqual(
      expected.questions.map(({ round, report }) => ({
        runId: MODEL_RUN_ID,
        round,
        maxRounds: end.context.maxRounds,
        question: report.blocker,
        report,
        waitMs: variant.config.waitForAnswersMs,
      })),
    );
    if (variant.config.waitForAnswersMs === undefined) {
      // A run without --ask is the reference's: no key of asking in its input, its context or its envelope.
      expect(Object.keys(input.guardRails ?? {}), 'the guard rails of a run without --ask').not.toContain(
        'waitForAnswersMs',
      );
      if (end.output?.ok === true)
        expect(Object.keys(end.output.envelope.result), 'its envelope').not.toContain('question');
      expect(
        progress.filter((event) => event.type.startsWith('question-')),
        'its progress events',
      ).toEqual([]);
    }
    // Nothing waits for an answer once the run has settled: each wait was settled by its source, or told to stop.
    for (const wait of answers.asked)
      expect(
        wait.settledByPath || wait.signal.aborted || end.status === 'active',
        'a wait left after the run settled',
      ).toBe(true);
    // The workspace is read where the run works, before each evaluator and after each verdict.
    expect(new Set(watch.snapshots), 'where the evaluator watch looked').toEqual(
      new Set(watch.snapshots.length === 0 ? [] : [CALLER.cwd]),
    );
    if (variant.evaluator === undefined) {
      // The hidden contract of a run without an evaluator: not a key of it anywhere, not even an undefined one.
      expect(Object.keys(input), 'the machine input of a run without an evaluator').not.toContain(
        'evaluator',
      );
      expect(Object.keys(end.context), 'its context').not.toContain('evaluation');
      expect(Object.keys(end.context.call), 'its call').not.toContain('evaluator');
      if (end.output?.ok === true)
        expect(Object.keys(end.output.envelope.result), 'its envelope').not.toContain('evaluation');
      expect(watch.snapshots, 'its workspace snapshots').toEqual([]);
    }
    for (const run of driven.verifies)
      expect(run.request, 'what the verify command was asked').toEqual({
        runId: MODEL_RUN_ID,
        round: run.request.round,
        cwd: CALLER.cwd,
        verify: input.guardRails?.verify,
        terminationGraceMs: input.terminationGraceMs,
        ...(input.sandbox === undefined ? {} : { sandbox: input.sandbox }),
      });
    if (variant.config.sandbox === undefined) {
      // As for the evaluator: a run without a sandbox has no key of it, so its input and context are the reference's.
      expect(Object.keys(input), 'the machine input of a run without a sandbox').not.toContain('sandbox');
      expect(Object.keys(end.context.call), 'its call').not.toContain('sandbox');
    }
    // Every child, evaluator and verify command of a sandboxed run starts in its sandbox; none of another run does.
    for (const c of [...(provider?.children ?? []), ...(evaluator?.children ?? [])])
      expect(c.sandbox, 'the sandbox a child was started in').toEqual(variant.config.sandbox);
    for (const { request } of driven.fingerprints)
      expect(request, 'what the fingerprint read').toEqual({
        runId: MODEL_RUN_ID,
        round: request.round,
        cwd: CALLER.cwd,
      });
    for (const c of provider?.children ?? []) {
      expect(c.request.outputSchema, 'each child gets its own copy of the schema').not.toBe(reportJsonSchema);
      expect(c.terminationGraceMs).toBe(variant.config.terminationGraceMs);
    }
    if ('cap' in variant.expected && expected.state !== null)
      expect(end.context.maxRounds, 'the round cap').toBe(variant.expected.cap);

    expect(end.hasTag('succeeded'), 'tagged succeeded exactly when the run ends with an envelope').toBe(
      end.output?.ok === true,
    );
    expect(end.hasTag('failure'), 'tagged failure exactly when the run ends with a failure').toBe(
      end.output?.ok === false,
    );
    if (end.output?.ok === true) expectRenderedText(end.output.envelope, variant.config.maxResultChars);
    expect(running(), 'children still running when the run settled').toBe(expected.abandoned ? 1 : 0);
  } finally {
    actor.stop();
    provider?.settleAll();
    evaluator?.settleAll();
    await settle();
  }
  expect(running(), 'children left running after cleanup').toBe(0);
  return exercisedBy(taken);
}
