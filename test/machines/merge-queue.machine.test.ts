import { describe, expect, test } from 'vitest';
import { fromPromise, waitFor } from 'xstate';
import type {
  BringOutcome,
  CombinedVerify,
  MergeItem,
  ResolveOutcome,
} from '../../src/machines/batch-types.js';
import type { MergeQueueInput } from '../../src/machines/merge-queue.machine.js';
import { loadOrFail } from '../model/load.js';

// The merge queue driven on its own, under a parent that hears its reports, with steps that answer at once from a
// script. Each test checks what the batch hears (the exact report) and what each step was started with.

// Loaded at run time: a machine that cannot even be built then fails a test rather than the file's loading (which
// Stryker's Vitest runner would count as no tests at all).
const loaded = await loadOrFail('the merge queue machine', async () => ({
  ...(await import('../../src/machines/merge-queue.machine.js')),
  ...(await import('../model/batch-harness.js')),
}));

/** A step's answer: its output, or what it rejects with. */
type Answer<T> = T | { rejects: unknown };

/** How each step of one task's merge answers; a step left out is not expected to run. */
interface MergeScript {
  bring?: Answer<BringOutcome>;
  resolve?: Answer<ResolveOutcome>;
  verify?: Answer<CombinedVerify>;
  land?: Answer<undefined>;
}

type StepName = keyof MergeScript;

const answer = (script: MergeScript, step: StepName): Promise<unknown> => {
  if (!(step in script)) return Promise.reject(new Error(`the script has no ${step} step`));
  const given = script[step];
  if (given !== null && typeof given === 'object' && 'rejects' in given) return Promise.reject(given.rejects);
  return Promise.resolve(given);
};

const rebased = (head: string, onto = 'base'): BringOutcome => ({ kind: 'rebased', head, onto });
const conflict = (files: string[]): BringOutcome => ({
  kind: 'conflict',
  files,
  detail: 'CONFLICT (content)',
});
const passes: CombinedVerify = { passed: true, outputTail: '' };
const lands: MergeScript = { bring: rebased('h1'), verify: passes, land: undefined };

if (loaded !== null) {
  const { mergeQueueMachine, startQueueUnder } = loaded;

  /** The queue's step actors, by the name a script gives each step. */
  const STEP_ACTORS = {
    bring: 'bringOntoTarget',
    resolve: 'resolveConflicts',
    verify: 'verifyCombined',
    land: 'landOnTarget',
  } as const;

  /**
   * The queue with every step provided (or those of `only`), answering from each task's script; `started` lists each
   * step in the order it started, with its input.
   */
  function scriptedQueue(scripts: Record<string, MergeScript>, only?: readonly StepName[]) {
    const started: { step: StepName; input: unknown }[] = [];
    const step = (name: StepName) =>
      fromPromise<unknown, MergeItem>(({ input }) => {
        started.push({ step: name, input });
        return answer(scripts[input.taskId] ?? {}, name);
      });
    const names = only ?? (Object.keys(STEP_ACTORS) as StepName[]);
    const actors = Object.fromEntries(names.map((name) => [STEP_ACTORS[name], step(name)]));
    return { logic: mergeQueueMachine.provide({ actors }), started };
  }

  /** Merges the tasks of `scripts` (queued in that order) and waits until the queue is idle with nothing queued. */
  async function merge(
    scripts: Record<string, MergeScript>,
    input: MergeQueueInput,
    only?: readonly StepName[],
  ) {
    const { logic, started } = scriptedQueue(scripts, only);
    const { actor, queue, reports } = startQueueUnder(logic, input);
    for (const taskId of Object.keys(scripts))
      queue.send({ type: 'ENQUEUE', item: { taskId, branch: `ralph/b/${taskId}` } });
    const idle = await waitFor(
      queue,
      (s) => s.status !== 'active' || (s.value === 'idle' && s.context.queue.length === 0),
    );
    actor.stop();
    return { reports, started, idle };
  }

  const VERIFIES = { verifies: true, resolves: false };
  const RESOLVES = { verifies: true, resolves: true };
  const item = (taskId: string): MergeItem => ({ taskId, branch: `ralph/b/${taskId}` });

  describe('a task lands only at the head its rebase made', () => {
    test('a clean rebase that passes the verify lands at the rebased head, from the head it was rebased onto', async () => {
      const { reports, started, idle } = await merge({ t: lands }, VERIFIES);
      expect(started).toEqual([
        { step: 'bring', input: item('t') },
        { step: 'verify', input: item('t') },
        { step: 'land', input: { ...item('t'), head: 'h1', onto: 'base' } },
      ]);
      expect(reports).toEqual([{ type: 'MERGE.LANDED', taskId: 't', head: 'h1' }]);
      expect(idle.context).toEqual({
        verifies: true,
        resolves: false,
        queue: [],
        current: null,
        rebased: null,
        problem: null,
      });
    });

    test('with no verify command a clean rebase lands at once, with no verify step', async () => {
      const { reports, started } = await merge(
        { t: { bring: rebased('h2', 'main-head'), land: undefined } },
        {
          verifies: false,
          resolves: false,
        },
      );
      expect(started.map((s) => s.step)).toEqual(['bring', 'land']);
      expect(started[1]?.input).toEqual({ ...item('t'), head: 'h2', onto: 'main-head' });
      expect(reports).toEqual([{ type: 'MERGE.LANDED', taskId: 't', head: 'h2' }]);
    });

    test('tasks merge one at a time, in the order they joined the queue', async () => {
      const { reports, started } = await merge(
        { x: lands, y: { ...lands, bring: rebased('h-y') }, z: { bring: conflict(['z.txt']) } },
        VERIFIES,
      );
      expect(started.map((s) => `${s.step} ${(s.input as MergeItem).taskId}`)).toEqual([
        'bring x',
        'verify x',
        'land x',
        'bring y',
        'verify y',
        'land y',
        'bring z',
      ]);
      expect(reports).toEqual([
        { type: 'MERGE.LANDED', taskId: 'x', head: 'h1' },
        { type: 'MERGE.LANDED', taskId: 'y', head: 'h-y' },
        { type: 'MERGE.NEEDS_REVIEW', taskId: 'z', note: 'conflict in z.txt', files: ['z.txt'] },
      ]);
    });
  });

  describe('a conflict needs review, unless a resolver resolves it', () => {
    test('with no resolver, a conflict needs review naming its files, and the target is not touched', async () => {
      const { reports, started, idle } = await merge(
        { t: { bring: conflict(['a.txt', 'b/c.ts']) } },
        VERIFIES,
      );
      expect(started.map((s) => s.step)).toEqual(['bring']);
      expect(reports).toEqual([
        {
          type: 'MERGE.NEEDS_REVIEW',
          taskId: 't',
          note: 'conflict in a.txt, b/c.ts',
          files: ['a.txt', 'b/c.ts'],
        },
      ]);
      expect(idle.context).toMatchObject({ current: null, rebased: null, problem: null });
    });

    test('a conflict the rebase named no file of is a conflict in the rebase', async () => {
      const { reports } = await merge({ t: { bring: conflict([]) } }, VERIFIES);
      expect(reports).toEqual([
        { type: 'MERGE.NEEDS_REVIEW', taskId: 't', note: 'conflict in the rebase', files: [] },
      ]);
    });

    test('the resolver gets the conflicting files; what it resolved is verified and lands at its head', async () => {
      const resolved: ResolveOutcome = { kind: 'resolved', head: 'm1', onto: 'base2' };
      const { reports, started } = await merge(
        { t: { bring: conflict(['a.txt']), resolve: resolved, verify: passes, land: undefined } },
        RESOLVES,
      );
      expect(started).toEqual([
        { step: 'bring', input: item('t') },
        { step: 'resolve', input: { ...item('t'), files: ['a.txt'] } },
        { step: 'verify', input: item('t') },
        { step: 'land', input: { ...item('t'), head: 'm1', onto: 'base2' } },
      ]);
      expect(reports).toEqual([{ type: 'MERGE.LANDED', taskId: 't', head: 'm1' }]);
    });

    test('a conflict the resolver did not resolve needs review, saying the conflict and why', async () => {
      const unresolved: ResolveOutcome = { kind: 'unresolved', note: 'blocked: both sides disagree' };
      const { reports, started } = await merge(
        { t: { bring: conflict(['a.txt', 'b.txt']), resolve: unresolved } },
        RESOLVES,
      );
      expect(started.map((s) => s.step)).toEqual(['bring', 'resolve']);
      expect(reports).toEqual([
        {
          type: 'MERGE.NEEDS_REVIEW',
          taskId: 't',
          note: 'conflict in a.txt, b.txt; the resolver did not resolve it: blocked: both sides disagree',
          files: ['a.txt', 'b.txt'],
        },
      ]);
    });
  });

  describe('a failing verify or a step that fails is needs-review, and the target is not moved', () => {
    test('a verify that fails on the combined tree needs review, with the end of its output', async () => {
      const { reports, started } = await merge(
        {
          t: { bring: rebased('h1'), verify: { passed: false, outputTail: 'FAIL combined\n1 test failed' } },
        },
        VERIFIES,
      );
      expect(started.map((s) => s.step)).toEqual(['bring', 'verify']);
      expect(reports).toEqual([
        {
          type: 'MERGE.NEEDS_REVIEW',
          taskId: 't',
          note: 'the verify command failed on the combined tree:\nFAIL combined\n1 test failed',
          files: [],
        },
      ]);
    });

    const fails = (error: unknown) => ({ rejects: error });
    test.each([
      ['the rebase', { bring: fails(new Error('git rebase could not start')) }, VERIFIES, ['bring']],
      [
        'the resolver',
        { bring: conflict(['a.txt']), resolve: fails(new Error('the resolver could not start')) },
        RESOLVES,
        ['bring', 'resolve'],
      ],
      [
        'the verify',
        { bring: rebased('h1'), verify: fails(new Error('the verify command could not start')) },
        VERIFIES,
        ['bring', 'verify'],
      ],
      [
        'the landing',
        { ...lands, land: fails(new Error('target moved')) },
        VERIFIES,
        ['bring', 'verify', 'land'],
      ],
    ] as const)('when %s fails, the task needs review with its error', async (_, script, input, steps) => {
      const { reports, started } = await merge({ t: script as MergeScript }, input);
      expect(started.map((s) => s.step)).toEqual(steps);
      const error = (Object.values(script).at(-1) as { rejects: Error }).rejects;
      expect(reports).toEqual([{ type: 'MERGE.NEEDS_REVIEW', taskId: 't', note: error.message, files: [] }]);
    });

    test('a step that fails with something other than an Error gives its text as the note', async () => {
      const { reports } = await merge({ t: { bring: { rejects: 'the rebase was refused' } } }, VERIFIES);
      expect(reports).toEqual([
        { type: 'MERGE.NEEDS_REVIEW', taskId: 't', note: 'the rebase was refused', files: [] },
      ]);
    });

    test('after a merge that needed review the next task merges afresh', async () => {
      const { reports } = await merge({ x: { bring: conflict(['a.txt']) }, y: lands }, VERIFIES);
      expect(reports).toEqual([
        { type: 'MERGE.NEEDS_REVIEW', taskId: 'x', note: 'conflict in a.txt', files: ['a.txt'] },
        { type: 'MERGE.LANDED', taskId: 'y', head: 'h1' },
      ]);
    });
  });

  describe('the queue runs only the steps the batch runner provides', () => {
    test.each([
      ['bringOntoTarget', [], lands, VERIFIES],
      ['resolveConflicts', ['bring'], { bring: conflict(['a.txt']) }, RESOLVES],
      ['verifyCombined', ['bring'], lands, VERIFIES],
      [
        'landOnTarget',
        ['bring'],
        { bring: rebased('h1'), land: undefined },
        { verifies: false, resolves: false },
      ],
    ] as const)(
      'a queue whose %s was not provided needs review saying so',
      async (actor, only, script, input) => {
        const { reports, started } = await merge({ t: script }, input, only);
        expect(started.map((s) => s.step)).toEqual(only);
        expect(reports).toEqual([
          {
            type: 'MERGE.NEEDS_REVIEW',
            taskId: 't',
            note: `mergeQueueMachine actor "${actor}" was not provided; run it through the batch runner`,
            files: [],
          },
        ]);
      },
    );
  });

  describe('the machine as its diagrams show it', () => {
    test('it is named mergeQueue and says what it does', () => {
      expect(mergeQueueMachine.id).toBe('mergeQueue');
      expect(mergeQueueMachine.root.description).toMatch(/^Lands finished tasks one at a time: /);
    });
  });
}
