import { describe, expect, test } from 'vitest';
import { buildOrFail, loadOrFail } from './load.js';

// Every path of the model, for every call: each refused call, accepted calls at round caps 1, 2 and 3, accepted
// calls with the guard rails on, and calls with an independent evaluator (refused, alone, with each guard rail, and
// resumed while it evaluated), and calls that ask a person when a round is blocked (refused resume points, alone,
// with the time limit and the cost budget, and resumed while a question waited).
// Each path is replayed against the real machine and bridge; the last test checks that the replays together
// went through every state node and every transition of the machine.
const suite = await loadOrFail('the machine and its model', () => import('./model-suite.js'));

if (suite !== null) {
  const ledger = new suite.CoverageLedger(suite.ralphMachine);
  const notReplayed = new Map<string, () => Promise<void>>();

  const calls = [
    ...suite.REFUSED_CALLS,
    ...suite.ACCEPTED_CALLS,
    ...suite.GUARD_RAIL_CALLS,
    ...suite.REFUSED_EVALUATOR_CALLS,
    ...suite.EVALUATOR_CALLS,
    ...suite.REFUSED_ASK_CALLS,
    ...suite.ASK_CALLS,
  ];
  for (const variant of calls) {
    const paths = buildOrFail(`the model of a call with ${variant.name} can be walked`, () =>
      suite.pathsOf(suite.machineInputFor(variant, suite.declaredProvider(variant))),
    );
    describe(`a call with ${variant.name}`, () => {
      for (const path of paths ?? []) {
        const name = suite.describePath(path);
        const key = `${variant.name}: ${name}`;
        const replay = async () => {
          ledger.add(await suite.replayPath(variant, path));
          notReplayed.delete(key);
        };
        notReplayed.set(key, replay);
        test(name, replay);
      }
    });
  }

  test('the replayed paths go through every state node and every transition of the machine', async () => {
    // Paths a test filter skipped are replayed here, so that the tally is always over the whole model.
    for (const replay of [...notReplayed.values()]) await replay();
    const { states, transitions, uncoveredStates, uncoveredTransitions } = ledger.summary();
    console.log(
      `model coverage: states ${states.covered}/${states.total}, transitions ${transitions.covered}/${transitions.total}`,
    );
    expect(uncoveredStates).toEqual([]);
    expect(uncoveredTransitions).toEqual([]);
  });
}
