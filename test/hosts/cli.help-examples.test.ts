import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { type Finished, ralph } from '../fixtures/cli-agents/harness.js';
import { docBlock, fencedBlocks, projectPage } from '../support/doc-block.js';

// Issue 29, defect 2: `ralph run --help` printed an example that ended `blocked` on a copy of the demo workspace
// (it named CHECKLIST.md; the workspace holds TASKS.md). Every example a newcomer can copy from a --help or from
// the README that needs no model (`--agent example`) is run here as printed, read from the built CLI and the page.

const DEMO_WORKSPACE = fileURLToPath(new URL('../../examples/demo-workspace', import.meta.url));
const OFFLINE_AGENT = '--agent example';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** A fresh temporary folder, removed after the test. */
async function scratchFolder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-help-example-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A printed command line's words as a shell would split them (a trailing `# comment` dropped), with every
 * placeholder path under /tmp/ (`/tmp/demo`, …) moved into `scratch`.
 */
function wordsOf(line: string, scratch: string): string[] {
  return parse(line.replaceAll('/tmp/', `${scratch}/`)).filter((word) => typeof word === 'string');
}

/** The help text of `ralph` and of every command `ralph --help` lists (`help` itself aside), by command. */
async function helpTexts(): Promise<Map<string, string>> {
  const top = await ralph(['--help']);
  const listed = top.stdout.slice(top.stdout.indexOf('\nCommands:\n'));
  const commands = listed
    .split('\n')
    .flatMap((line) => /^ {2}([a-z][\w-]*) /.exec(line)?.[1] ?? [])
    .filter((name) => name !== 'help');
  expect(commands).toEqual(expect.arrayContaining(['run', 'resume', 'replay', 'report', 'batch', 'submit']));
  const helps = await Promise.all(commands.map((command) => ralph([command, '--help'])));
  return new Map([
    ['', top.stdout],
    ...commands.map((command, at) => [command, helps[at]?.stdout ?? ''] as const),
  ]);
}

/** The `$ ralph …` example lines of a help text that use the offline example agent, without the `$ `. */
const offlineExamples = (help: string): string[] =>
  [...help.matchAll(/^ *\$ (ralph .*)$/gm)]
    .map((example) => example[1] as string)
    .filter((example) => example.includes(OFFLINE_AGENT));

/** What a run that ended `complete` left: no unticked box in the demo checklist. */
const uncheckedTasks = async (workspace: string): Promise<string[]> =>
  (await readFile(join(workspace, 'TASKS.md'), 'utf8'))
    .split('\n')
    .filter((line) => line.startsWith('- [ ]'));

/** Says what ran and what it printed when an example does not end as promised. */
const shown = (line: string, out: Finished): string => `${line}\n${out.stdout}\n${out.stderr}`;

describe('every --help example that uses the offline agent runs as printed on a copy of the demo workspace', () => {
  it('each one exits 0 (complete), with every task of the demo ticked; --inspect serves its page', async () => {
    const examples = [...(await helpTexts()).values()].flatMap(offlineExamples);
    expect(examples.length).toBeGreaterThanOrEqual(2);

    for (const example of examples) {
      const scratch = await scratchFolder();
      const words = wordsOf(example, scratch);
      const at = words.indexOf('--cwd');
      // The workspace the example names (`--cwd /tmp/demo`), else the folder it is run in: a fresh demo either way.
      const workspace = at < 0 ? join(scratch, 'here') : (words[at + 1] as string);
      await cp(DEMO_WORKSPACE, workspace, { recursive: true });

      const out = await ralph(words.slice(1), { cwd: at < 0 ? workspace : scratch });

      expect(out.code, shown(example, out)).toBe(0);
      if (words[1] === 'run') expect(await uncheckedTasks(workspace), example).toEqual([]);
      if (words.includes('--inspect'))
        expect(out.stderr, example).toMatch(/^ralph: inspector at http:\/\/127\.0\.0\.1:\d+\//m);
    }
  }, 120_000);
});

describe("the README's offline examples run as written, in order", () => {
  it('every sh block using the example agent: copy the demo, record a run, report it, replay it, inspect a run', async () => {
    const blocks = fencedBlocks(await projectPage('README.md'), 'sh').filter((block) =>
      block.includes(OFFLINE_AGENT),
    );
    expect(blocks).toContain(await docBlock('README.md', '## See a run', 'sh'));

    for (const block of blocks) {
      const scratch = await scratchFolder();
      const lines = block.split('\n').filter((line) => line.trim() !== '');
      expect(lines.every((line) => !line.includes('--agent claude'))).toBe(true);
      // Each line may use what the line before it wrote (the recording): one folder for the block, in order.
      for (const line of lines) {
        const words = wordsOf(line, scratch);
        if (words[0] === 'cp') {
          expect(words.slice(0, 3)).toEqual(['cp', '-r', 'examples/demo-workspace']);
          await cp(DEMO_WORKSPACE, words[3] as string, { recursive: true });
          continue;
        }
        expect(words.slice(0, 2)).toEqual(['npx', 'ralph']);
        const out = await ralph(words.slice(2), { cwd: scratch });
        expect(out.code, shown(line, out)).toBe(0);
        if (words.includes('--inspect'))
          expect(out.stderr, line).toMatch(/^ralph: inspector at http:\/\/127\.0\.0\.1:\d+\//m);
        if (words[2] === 'report') {
          const at = words.indexOf('-o');
          const page = at < 0 ? (words[3] as string).replace(/\.jsonl$/, '.html') : (words[at + 1] as string);
          expect((await readFile(join(scratch, page), 'utf8')).startsWith('<!doctype html>'), line).toBe(
            true,
          );
        }
      }
    }
  }, 120_000);
});
