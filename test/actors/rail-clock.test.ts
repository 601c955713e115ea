import { describe, expect, it } from 'vitest';
import { railClockOf } from '../../src/actors/rail-clock.js';
import { MAX_DURATION_MS } from '../../src/contract/duration.js';
import type { GuardRails } from '../../src/contract/types.js';
import { createRalphEngine, createScriptedProvider, normalizeConfig } from '../../src/index.js';
import { agent } from '../support/tool.js';

const railsOff: GuardRails = { roundTimeoutMs: null, maxWallTimeMs: null, verify: null, maxIdleRounds: null };
/** Node's pending timers. */
const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

/** Starts a run whose child never reports, and resolves once the child started. */
async function suspendedRun(config: Record<string, unknown>) {
  const provider = createScriptedProvider([{ hang: true }]);
  const engine = createRalphEngine();
  let started: () => void = () => {};
  const childStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  const run = engine.start({
    args: { objective: 'x' },
    agent,
    config: normalizeConfig({ subagentProvider: provider.name, ...config }),
    provider,
    onProgress: (event) => {
      if (event.type === 'child-started') started();
    },
  });
  await childStarted;
  return run;
}

describe("the engine's clock", () => {
  it('schedules no timer for a guard rail that is off: a suspended run with every rail off holds none', async () => {
    const before = timers();
    const run = await suspendedRun({});
    expect(timers()).toBe(before);
    run.cancel();
    await run.result.catch(() => {});
  });

  it('schedules the timers of the rails that are on: the round timeout and the wall clock', async () => {
    const before = timers();
    const run = await suspendedRun({ roundTimeoutMs: 60_000, maxWallTimeMs: 120_000 });
    expect(timers()).toBe(before + 2);
    run.cancel();
    await run.result.catch(() => {});
  });

  it("is XState's own when a rail is set to the longest duration, which is then scheduled like any other", () => {
    expect(railClockOf(railsOff)).toBeDefined();
    expect(railClockOf({ ...railsOff, roundTimeoutMs: MAX_DURATION_MS })).toBeUndefined();
    expect(railClockOf({ ...railsOff, maxWallTimeMs: MAX_DURATION_MS })).toBeUndefined();
    expect(railClockOf({ ...railsOff, waitForAnswersMs: MAX_DURATION_MS })).toBeUndefined();
  });

  it('runs a timer shorter than the longest duration, and clears it', async () => {
    const clock = railClockOf(railsOff);
    if (clock === undefined) throw new Error('no clock');
    await new Promise<void>((resolve) => clock.setTimeout(() => resolve(), 1));
    let fired = false;
    const id = clock.setTimeout(() => {
      fired = true;
    }, 60_000);
    const before = timers();
    clock.clearTimeout(id);
    expect(timers()).toBe(before - 1);
    expect(fired).toBe(false);
    // The longest duration is not scheduled, and clearing it is harmless.
    const off = clock.setTimeout(() => {}, MAX_DURATION_MS);
    expect(timers()).toBe(before - 1);
    clock.clearTimeout(off);
  });
});
