import { once } from 'node:events';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ToolSet } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type Confinement,
  readWorkspaceFile,
  writeWorkspaceFile,
} from '../../src/workspace/workspace-files.js';
import { createWorkspaceTools } from '../../src/workspace/workspace-tools.js';

const SECRET = `TOP SECRET ${Math.random().toString(36).slice(2)}`;
const OUTSIDE_ONLY = 'outside-only-name.txt';
/** Tool calls of each kind made while the folder flips: enough that the unguarded code escapes many times over. */
const ATTEMPTS = 200;

/**
 * Flips `<root>/sub` between a real folder of the workspace and a symbolic link to the outside folder, as fast as it
 * can, until told to stop: the attacker of a check-then-use race. A folder the tools created in the instant `sub`
 * was missing is removed so the flipping goes on.
 */
const FLIPPER = `
const fs = require('node:fs');
const { workerData } = require('node:worker_threads');
const { root, outside, flags } = workerData;
const sub = root + '/sub';
const held = root + '/held';
while (Atomics.load(flags, 0) === 0) {
  try { fs.renameSync(sub, held); } catch {}
  try { fs.symlinkSync(outside, sub); } catch {}
  try { fs.unlinkSync(sub); } catch {}
  try { fs.renameSync(held, sub); } catch {
    try { fs.rmSync(sub, { recursive: true, force: true }); } catch {}
    try { fs.renameSync(held, sub); } catch {}
  }
  Atomics.add(flags, 1, 1);
}
`;

let root = '';
let outside = '';

beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'ralph-swap-')));
  outside = await realpath(await mkdtemp(path.join(tmpdir(), 'ralph-swap-outside-')));
  await writeFile(path.join(outside, 'secret.txt'), SECRET);
  await writeFile(path.join(outside, OUTSIDE_ONLY), SECRET);
  await mkdir(path.join(outside, 'deep'));
  await writeFile(path.join(outside, 'deep', 'secret.txt'), SECRET);
  await mkdir(path.join(root, 'sub', 'deep'), { recursive: true });
  await writeFile(path.join(root, 'sub', 'secret.txt'), 'the workspace copy');
  await writeFile(path.join(root, 'sub', 'deep', 'secret.txt'), 'the deeper workspace copy');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

/** Every entry under `dir`, links not followed, with the content of each file and the target of each link. */
function snapshot(dir: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at).sort()) {
      const full = path.join(at, name);
      const key = path.relative(dir, full);
      const stats = lstatSync(full);
      if (stats.isSymbolicLink()) entries[key] = `link -> ${readlinkSync(full)}`;
      else if (stats.isDirectory()) {
        entries[key] = 'folder';
        walk(full);
      } else entries[key] = readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return entries;
}

/** The running flipper: `flipped` resolves after its next flip, `stop` once it has stopped and exited. */
interface Flipper {
  flipped(): Promise<void>;
  stop(): Promise<void>;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

async function startFlipping(): Promise<Flipper> {
  const flags = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(FLIPPER, { eval: true, workerData: { root, outside, flags } });
  const exited = once(worker, 'exit');
  return {
    // However busy the machine, the calls are spread over many flips: each round of calls waits for one.
    flipped: async () => {
      const seen = Atomics.load(flags, 1);
      while (Atomics.load(flags, 1) === seen) await tick();
    },
    stop: async () => {
      Atomics.store(flags, 0, 1);
      await exited;
    },
  };
}

type Outcome = { ok: true; value: string } | { ok: false; error: string };

/** Calls one workspace tool as the AI SDK would, and tells what it answered or threw. */
async function call(tools: ToolSet, name: string, input: unknown): Promise<Outcome> {
  const execute = tools[name]?.execute;
  if (execute === undefined) throw new Error(`no tool ${name}`);
  try {
    const value = await execute(input, { toolCallId: 'call', messages: [] });
    return { ok: true, value: String(value) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

const toolsFor = (workspace: string): ToolSet =>
  createWorkspaceTools({
    root: workspace,
    commandTimeoutMs: 10_000,
    killGraceMs: 100,
    maxOutputBytes: 4096,
    signal: new AbortController().signal,
  });

/** Runs `attempt` ATTEMPTS times while the folder flips, one flip at least between attempts; returns every outcome. */
async function race(attempt: (i: number) => Promise<Outcome>[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const flipper = await startFlipping();
  try {
    for (let i = 0; i < ATTEMPTS; i += 1) {
      await flipper.flipped();
      for (const outcome of attempt(i)) outcomes.push(await outcome);
    }
  } finally {
    await flipper.stop();
  }
  return outcomes;
}

const leaks = (outcomes: Outcome[]): Outcome[] =>
  outcomes.filter(
    (outcome) => outcome.ok && (outcome.value.includes(SECRET) || outcome.value.includes(OUTSIDE_ONLY)),
  );

/** Turns a promise into an outcome. */
const settle = (work: Promise<unknown>): Promise<Outcome> =>
  work.then(
    (value): Outcome => ({ ok: true, value: String(value) }),
    (error: unknown): Outcome => ({ ok: false, error: String(error) }),
  );

describe('the workspace file tools under a symbolic-link swap between check and use', () => {
  it('never read the outside secret, never list an outside name, and never write outside', async () => {
    const before = snapshot(outside);
    const tools = toolsFor(root);

    const outcomes = await race((i) => [
      call(tools, 'read_file', { path: 'sub/secret.txt' }),
      call(tools, 'read_file', { path: 'sub/deep/secret.txt' }),
      call(tools, 'list_files', { path: 'sub' }),
      call(tools, 'write_file', { path: 'sub/secret.txt', content: `written ${i}` }),
      call(tools, 'write_file', { path: 'sub/deep/secret.txt', content: `written ${i}` }),
      call(tools, 'write_file', { path: `sub/new-${i}/file.txt`, content: `new ${i}` }),
    ]);

    expect({ leaked: leaks(outcomes), outside: snapshot(outside) }).toEqual({ leaked: [], outside: before });
  });

  // Where /proc/self/fd cannot name a descriptor (not Linux), the fallback compares inodes: it refuses a link that
  // is in place, but a swap timed to the instant between its check and the use can still pass (no openat in
  // Node), so only the Linux walk above is raced here.
  it('where descriptors cannot be named (the device and inode check): a link out in place is refused, nothing lands outside', async () => {
    const before = snapshot(outside);
    const c: Confinement = { root, procFd: false };
    await rm(path.join(root, 'sub'), { recursive: true, force: true });
    await symlink(outside, path.join(root, 'sub'));

    const outcomes = await Promise.all([
      settle(readWorkspaceFile(c, 'sub/secret.txt', 4096)),
      settle(readWorkspaceFile(c, 'sub/deep/secret.txt', 4096)),
      settle(writeWorkspaceFile(c, 'sub/secret.txt', 'written')),
      settle(writeWorkspaceFile(c, 'sub/deep/secret.txt', 'written')),
      settle(writeWorkspaceFile(c, 'sub/new/file.txt', 'new')),
    ]);

    expect(outcomes.map((outcome) => outcome.ok)).toEqual([false, false, false, false, false]);
    expect(leaks(outcomes)).toEqual([]);
    expect(snapshot(outside)).toEqual(before);
  });
});
