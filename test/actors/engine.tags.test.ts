import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  commandProvider,
  createRalphEngine,
  normalizeConfig,
  RalphError,
  type RalphRun,
} from '../../src/index.js';
import { stateKey } from '../../src/inspect/recording-format.js';
import { agentCommand, cleanEnv, isRunning, until, useScratch } from '../support/processes.js';

const s = useScratch();

/** What a host watching a run's snapshots sees: the state, its tags, and which child processes are alive then. */
interface Seen {
  state: string;
  tags: string[];
  alive: number[];
}

/** The child processes the fake agents logged so far that are still alive (read at once, inside the observer). */
function aliveChildren(): number[] {
  let text = '';
  try {
    text = readFileSync(s.pidLog, 'utf8');
  } catch {
    // No child has logged its pid yet.
  }
  return text.split('\n').filter(Boolean).map(Number).filter(isRunning);
}

/** Starts a run of `fixture` through the engine and the command provider, recording every snapshot it goes through. */
function watchedRun(fixture: string, env: Record<string, string> = {}): { run: RalphRun; seen: Seen[] } {
  const provider = commandProvider({
    command: agentCommand(fixture),
    baseEnv: cleanEnv(),
    env: { FIXTURE_PID_LOG: s.pidLog, ...env },
  });
  const run = createRalphEngine().start({
    args: { objective: 'write round files', maxRounds: 3 },
    agent: { id: 'parent', cwd: s.workspace },
    config: normalizeConfig({ subagentProvider: 'command' }),
    provider,
  });
  const actor = run.actor;
  if (actor === null) throw new Error('the run started no machine');
  const seen: Seen[] = [];
  const look = () => {
    const snapshot = actor.getSnapshot();
    seen.push({ state: stateKey(snapshot.value), tags: [...snapshot.tags].sort(), alive: aliveChildren() });
  };
  // The machine started inside `start`, so the first state is read here and every later one as it comes.
  look();
  actor.subscribe(look);
  return { run, seen };
}

describe('the tags a host reads on a run of real child processes', () => {
  it('a two-round run: childRunning while each round has its child, then settled and succeeded, no child left', async () => {
    const { run, seen } = watchedRun('stdout-report.mjs', { FIXTURE_COMPLETE_AT: '2' });
    const envelope = await run.result;
    expect(envelope.result).toMatchObject({ status: 'complete', rounds: 2 });
    expect(seen.map(({ state, tags }) => ({ state, tags }))).toEqual([
      { state: 'running.round.starting', tags: ['childRunning'] },
      { state: 'running.round.awaitingReport', tags: ['childRunning'] },
      { state: 'running.round.starting', tags: ['childRunning'] },
      { state: 'running.round.awaitingReport', tags: ['childRunning'] },
      { state: 'complete', tags: ['settled', 'succeeded'] },
    ]);
    for (const look of seen)
      if (look.alive.length > 0)
        expect(look.tags, `a child is alive in ${look.state}`).toContain('childRunning');
    expect(seen.at(-1)?.alive, 'children alive once the run is settled').toEqual([]);
    expect(run.actor?.getSnapshot().hasTag('settled')).toBe(true);
  });

  it('a cancelled run: childRunning while its child lives, then settled as a failure once the child is gone', async () => {
    const { run, seen } = watchedRun('hang.mjs');
    await until(() => aliveChildren().length === 1, 'the child to be running');
    const [child] = aliveChildren();
    const snapshot = run.actor?.getSnapshot();
    expect(snapshot?.value).toEqual({ running: { round: 'awaitingReport' } });
    expect(snapshot?.hasTag('childRunning'), 'a host sees that a child runs').toBe(true);
    expect(snapshot?.hasTag('settled')).toBe(false);

    run.cancel();
    const error = await run.result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RalphError);
    expect((error as RalphError).code).toBe('cancelled');
    expect(isRunning(child as number), 'the child once the run is settled').toBe(false);
    expect(seen.map(({ state, tags }) => ({ state, tags }))).toEqual([
      { state: 'running.round.starting', tags: ['childRunning'] },
      { state: 'running.round.awaitingReport', tags: ['childRunning'] },
      { state: 'cancelling.child', tags: ['childRunning'] },
      { state: 'cancelled', tags: ['failure', 'settled'] },
    ]);
    for (const look of seen)
      if (look.alive.length > 0)
        expect(look.tags, `a child is alive in ${look.state}`).toContain('childRunning');
    expect(seen.at(-1)?.alive).toEqual([]);
  });
});
