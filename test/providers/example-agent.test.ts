import { cp, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CommandChildRun,
  commandProvider,
  createProviderRegistry,
  createRalphTool,
  exampleAgentProvider,
  exampleAgentScript,
  type RalphProgressEvent,
  type SubagentProvider,
} from '../../src/index.js';
import { cleanEnv, isRunning, type Scratch, scratch } from '../support/processes.js';

const demoWorkspace = fileURLToPath(new URL('../../examples/demo-workspace/', import.meta.url));

let s: Scratch;
let pids: number[];
beforeEach(async () => {
  s = await scratch();
  pids = [];
});
afterEach(async () => {
  expect(pids.filter(isRunning)).toEqual([]);
  await s.cleanup();
});

/** Runs the loop over the workspace with `provider`, noting the pid of every child it starts. */
async function loop(provider: SubagentProvider, maxRounds?: number) {
  const tracked: SubagentProvider = {
    ...provider,
    start: async (request, options) => {
      const run = (await provider.start(request, options)) as CommandChildRun;
      pids.push(run.pid);
      return run;
    },
  };
  const providers = createProviderRegistry();
  providers.register(tracked);
  const tool = createRalphTool({ subagentProvider: provider.name }, { providers });
  const events: RalphProgressEvent[] = [];
  const args =
    maxRounds === undefined ? { objective: 'finish TASKS.md' } : { objective: 'finish TASKS.md', maxRounds };
  const call = tool.execute(args, {
    agent: { id: 'parent', cwd: s.workspace },
    onProgress: (e) => events.push(e),
  });
  return { call, events };
}

const read = (path: string) => readFile(join(s.workspace, path), 'utf8');

async function expectDemoDone() {
  expect(await read('hello.txt')).toBe('Hello from a fresh Ralph round!\n');
  expect(await read('notes/plan.md')).toBe(
    '# Plan\n\n1. Say hello.\n2. Write this plan.\n3. Summarize the workspace.\n',
  );
  expect(await read('SUMMARY.txt')).toBe('2 files, 6 lines\nhello.txt: 1 line\nnotes/plan.md: 5 lines\n');
  const tasks = (await read('TASKS.md')).split('\n').filter((line) => /^- \[/.test(line));
  expect(tasks).toHaveLength(3);
  for (const task of tasks) expect(task.startsWith('- [x] ')).toBe(true);
}

describe('the example agent finishes a copy of the demo workspace through the ralph tool', () => {
  it('with exampleAgentProvider: one task a round, complete in 3 rounds, the checks as evidence', async () => {
    await cp(demoWorkspace, s.workspace, { recursive: true });
    const { call, events } = await loop(exampleAgentProvider({ baseEnv: cleanEnv() }));
    const envelope = await call;

    expect(envelope.result.status).toBe('complete');
    expect(envelope.result.rounds).toBe(3);
    expect(envelope.agentsStarted).toBe(3);
    expect(envelope.result.report.evidence).toEqual([
      'task 1 (create hello.txt): check `grep -q "Hello from a fresh Ralph round!" hello.txt` passed (exit 0)',
      'task 2 (create notes/plan.md): check `grep -q "Summarize the workspace" notes/plan.md` passed (exit 0)',
      'task 3 (run `node tools/summarize.mjs hello.txt notes/plan.md`): check `grep -qx "2 files, 6 lines" SUMMARY.txt` passed (exit 0)',
    ]);
    await expectDemoDone();
    const handoffs = events.filter((e) => e.type === 'report-accepted').map((e) => e.report.status);
    expect(handoffs).toEqual(['continue', 'continue', 'complete']);
    expect(new Set(pids).size).toBe(3);
  });

  it('with commandProvider running the script from a command string', async () => {
    await cp(demoWorkspace, s.workspace, { recursive: true });
    const provider = commandProvider({
      command: `'${process.execPath}' '${exampleAgentScript()}'`,
      baseEnv: cleanEnv(),
    });
    const envelope = await (await loop(provider)).call;
    expect(envelope.result.status).toBe('complete');
    expect(envelope.result.rounds).toBe(3);
    await expectDemoDone();
  });

  it('hands the next task on as the next step, and stops budget-limited when rounds run out', async () => {
    await cp(demoWorkspace, s.workspace, { recursive: true });
    const envelope = await (await loop(exampleAgentProvider({ baseEnv: cleanEnv() }), 2)).call;
    expect(envelope.result.status).toBe('budget-limited');
    expect(envelope.result.rounds).toBe(2);
    expect(envelope.result.report.nextSteps).toEqual([
      'Do task 3 (run `node tools/summarize.mjs hello.txt notes/plan.md`): Run `node tools/summarize.mjs hello.txt notes/plan.md` — check: `grep -qx "2 files, 6 lines" SUMMARY.txt`',
    ]);
  });
});

describe('the example agent reports blocked when it cannot go on', () => {
  it('a check that fails twice: continue after the first failure, blocked after the second', async () => {
    await writeFile(
      join(s.workspace, 'TASKS.md'),
      '# Tasks\n\n- [ ] Create `a.txt` containing "apple\\n" -- check: `grep -q banana a.txt`\n',
    );
    const { call, events } = await loop(exampleAgentProvider({ baseEnv: cleanEnv() }));
    const envelope = await call;
    expect(envelope.result.status).toBe('blocked');
    expect(envelope.result.rounds).toBe(2);
    expect(envelope.result.report.blocker).toBe(
      'task 1 (create a.txt): check `grep -q banana a.txt` failed (exit 1) 2 times',
    );
    const first = events.find((e) => e.type === 'report-accepted');
    expect(first?.type === 'report-accepted' && first.report.status).toBe('continue');
    expect(JSON.parse(await read('.ralph/attempts.json'))).toEqual({
      'Create `a.txt` containing "apple\\n" -- check: `grep -q banana a.txt`': 2,
    });
    expect(await read('a.txt')).toBe('apple\n');
    expect(await read('TASKS.md')).toContain('- [ ] Create `a.txt`');
  });

  it('a workspace without TASKS.md', async () => {
    const envelope = await (await loop(exampleAgentProvider({ baseEnv: cleanEnv() }))).call;
    expect(envelope.result.status).toBe('blocked');
    expect(envelope.result.rounds).toBe(1);
    expect(envelope.result.report.blocker).toBe(
      `there is no readable TASKS.md in the workspace ${await realpath(s.workspace)}`,
    );
  });

  it('a task that would write outside the workspace', async () => {
    await writeFile(
      join(s.workspace, 'TASKS.md'),
      '- [ ] Create `../escape.txt` containing "x" -- check: `true`\n',
    );
    const envelope = await (await loop(exampleAgentProvider({ baseEnv: cleanEnv() }))).call;
    expect(envelope.result.status).toBe('blocked');
    expect(envelope.result.report.blocker).toBe('line 1 of TASKS.md: ../escape.txt is outside the workspace');
  });
});

/** Every file under the workspace with its text: what a read-only round must leave as it was. */
async function workspaceFiles(): Promise<Record<string, string>> {
  const entries = await readdir(s.workspace, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  return Object.fromEntries(
    await Promise.all(files.map(async (file) => [file, await readFile(file, 'utf8')])),
  );
}

describe('the example agent with readOnly writes nothing in the workspace', () => {
  it('an unfinished checklist: each round reports the first task not done as the next step, and does not do it', async () => {
    await cp(demoWorkspace, s.workspace, { recursive: true });
    const before = await workspaceFiles();
    const envelope = await (await loop(exampleAgentProvider({ baseEnv: cleanEnv(), readOnly: true }), 2))
      .call;
    expect(envelope.result.status).toBe('budget-limited');
    expect(envelope.result.report.summary).toBe(
      'Round 2: task 1 (create hello.txt) is not done yet; read-only, so nothing was changed.',
    );
    expect(envelope.result.report.nextSteps).toEqual([
      'Do task 1 (create hello.txt): Create `hello.txt` containing "Hello from a fresh Ralph round!\\n" — check: `grep -q "Hello from a fresh Ralph round!" hello.txt`',
    ]);
    expect(await workspaceFiles()).toEqual(before);
  });

  it('a finished checklist: complete, with every check run again as the evidence', async () => {
    await cp(demoWorkspace, s.workspace, { recursive: true });
    await (await loop(exampleAgentProvider({ baseEnv: cleanEnv() }))).call;
    const before = await workspaceFiles();
    const envelope = await (await loop(exampleAgentProvider({ baseEnv: cleanEnv(), readOnly: true }))).call;
    expect(envelope.result.status).toBe('complete');
    expect(envelope.result.rounds).toBe(1);
    expect(envelope.result.report.evidence).toHaveLength(3);
    expect(await workspaceFiles()).toEqual(before);
  });
});
