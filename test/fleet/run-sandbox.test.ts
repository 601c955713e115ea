import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSandbox, runSandboxOf, workerSandbox } from '../../src/fleet/run-sandbox.js';

const RALPH_HOME = join(homedir(), '.ralph');
const own = { network: 'keep' as const, env: ['MY_TOKEN'], hide: ['/srv/recordings'] };

describe("a fleet run's sandbox on a worker", () => {
  it("hides the worker's state folder, ~/.ralph and its private paths, with or without a sandbox of its own", () => {
    const hide = [RALPH_HOME, '/srv/state', '/etc/ralph/url'];
    expect(workerSandbox(undefined, { stateDir: '/srv/state', privatePaths: ['/etc/ralph/url'] })).toEqual({
      hide,
    });
    const boxed = workerSandbox(own, { stateDir: '/srv/state/', privatePaths: ['/etc/ralph/url'] });
    expect(boxed.hide).toEqual(['/srv/recordings', ...hide]);
    expect(boxed.own).toEqual({ ...own, hide: ['/srv/recordings', ...hide] });
  });

  it("a worker's own sandbox holds for every run; a run's ask only takes the network away", () => {
    const worker = workerSandbox(own, { stateDir: '/srv/state' });
    expect(runSandbox(worker, undefined, 'w')).toBe(worker.own);
    expect(runSandbox(worker, {}, 'w')).toEqual(worker.own);
    expect(runSandbox(worker, { network: 'keep' }, 'w')).toEqual(worker.own);
    expect(runSandbox(worker, { network: 'none' }, 'w')).toEqual({ ...worker.own, network: 'none' });
    const strict = workerSandbox({ ...own, network: 'none' }, { stateDir: '/srv/state' });
    expect(runSandbox(strict, { network: 'keep' }, 'w')?.network).toBe('none');
  });

  it('a worker without one sandboxes only the runs that ask, with no variable of its own passed through', () => {
    const worker = workerSandbox(undefined, { stateDir: '/srv/state' });
    expect(runSandbox(worker, undefined, 'w')).toBeUndefined();
    expect(runSandbox(worker, {}, 'w')).toEqual({ network: 'keep', env: [], hide: worker.hide });
    expect(runSandbox(worker, { network: 'none' }, 'w')).toEqual({
      network: 'none',
      env: [],
      hide: worker.hide,
    });
  });

  it('refuses an ask that is not what ralph submit --sandbox writes', () => {
    const worker = workerSandbox(own, { stateDir: '/srv/state' });
    for (const [asked, problem] of [
      [null, 'it is null, not an object'],
      [false, 'it is false, not an object'],
      [[], 'it is [], not an object'],
      [{ env: ['*'], hide: [] }, 'it names "env", "hide", which a run cannot set'],
      [{ network: 'host' }, 'its network is "host", not "keep" or "none"'],
    ] as const)
      expect(() => runSandbox(worker, asked, 'w1')).toThrow(
        `ralph fleet: worker w1 refuses the run's sandbox setting: ${problem}. Nothing was started`,
      );
  });

  it('what status says: the rounds recorded as sandboxed, and whether the run asked', () => {
    const round = (n: number, sandboxed: boolean) => ({
      name: `round-${n}`,
      output: { ok: true, output: {}, ...(sandboxed ? { sandboxed: true } : {}) },
    });
    const evaluation = { name: 'evaluate-2', output: { ok: true, output: {}, sandboxed: true } };
    expect(runSandboxOf(false, [round(1, false)])).toBeUndefined();
    expect(runSandboxOf(true, [])).toEqual({ asked: true, rounds: 0 });
    expect(runSandboxOf(false, [round(1, true), round(2, false), evaluation])).toEqual({
      asked: false,
      rounds: 1,
    });
  });
});
