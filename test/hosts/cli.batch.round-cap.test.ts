import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, test } from 'vitest';
import { ralph } from '../fixtures/cli-agents/harness.js';
import { tempFolder, tempRepo } from '../support/git-repo.js';

// Issue 29, item 10: `ralph run` says once that only the ceiling (256 rounds) bounds a paid agent given no
// --max-rounds; `ralph batch` said nothing though each of its loops was bounded the same way. It says it once a
// batch (not once a task), before the first loop starts, when some task of a paid agent has no cap at all.

const AGENT = quote([
  process.execPath,
  fileURLToPath(new URL('../fixtures/batch-agents/edit-agent.mjs', import.meta.url)),
]);
const NOTE =
  'ralph batch: no --max-rounds given: up to 256 rounds (the ceiling) for each task without its own maxRounds; pass --max-rounds N to cap a paid agent';

/** `ralph batch` of `tasks` (a JSON tasks file beside a fresh repository) with the fake editing agent. */
async function batch(tasks: unknown[], ...extra: string[]) {
  const repo = tempRepo();
  const tasksFile = join(tempFolder('ralph-batch-cap-'), 'tasks.json');
  writeFileSync(tasksFile, JSON.stringify(tasks));
  return ralph(['batch', tasksFile, '--agent-command', AGENT, '--cwd', repo, ...extra], { cwd: repo });
}

/** The batch's progress lines, the `\n` split off. */
const linesOf = (stderr: string): string[] => stderr.split('\n');

describe('ralph batch says the round cap once when only the ceiling bounds a paid agent', () => {
  test('no --max-rounds, a task without maxRounds: the note, once, before any loop starts', async () => {
    const out = await batch([
      { id: 'a', objective: 'write a.txt a' },
      { id: 'b', objective: 'write b.txt b' },
      { id: 'c', objective: 'write c.txt c', maxRounds: 2 },
    ]);

    expect(out.code, out.stderr).toBe(0);
    const lines = linesOf(out.stderr);
    expect(lines.filter((line) => line === NOTE)).toHaveLength(1);
    const firstLoop = lines.findIndex((line) => / started in /.test(line));
    expect(firstLoop).toBeGreaterThan(0);
    expect(lines.indexOf(NOTE)).toBeLessThan(firstLoop);
  }, 60_000);

  test('not with --max-rounds, nor when every task has its own cap or is the offline example agent', async () => {
    const capped = await batch([{ id: 'a', objective: 'write a.txt a' }], '--max-rounds', '3');
    // --trust-tasks: the file's own agent for b (without it the command line's agent wins for every task).
    const ownCaps = await batch(
      [
        { id: 'a', objective: 'write a.txt a', maxRounds: 1 },
        { id: 'b', objective: 'write b.txt b', agent: 'example' },
      ],
      '--trust-tasks',
    );

    expect(capped.code, capped.stderr).toBe(0);
    expect(capped.stderr).not.toContain('no --max-rounds given');
    // The example agent finds no checklist in this repository and blocks: what counts here is what was said.
    expect(ownCaps.stderr).toMatch(/^ralph batch: a: landed/m);
    expect(ownCaps.stderr).not.toContain('no --max-rounds given');
  }, 60_000);

  test('not for a batch refused before it starts (no git repository)', async () => {
    const tasksFile = join(tempFolder('ralph-batch-cap-'), 'tasks.json');
    writeFileSync(tasksFile, JSON.stringify([{ id: 'a', objective: 'write a.txt a' }]));
    const out = await ralph([
      'batch',
      tasksFile,
      '--agent-command',
      AGENT,
      '--cwd',
      tempFolder('ralph-no-repo-'),
    ]);

    expect(out.code).toBe(2);
    expect(out.stderr).not.toContain('no --max-rounds given');
  });
});
