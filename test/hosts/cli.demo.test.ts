import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ralph } from '../fixtures/cli-agents/harness.js';

const made: string[] = [];

afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('ralph demo (what npm start runs)', () => {
  it('runs the example agent on a fresh copy of the demo workspace until it reports complete, offline', async () => {
    const out = await ralph(['demo']);
    const dir = /the workspace is at (\S+)/.exec(out.stderr)?.[1];
    if (dir !== undefined) made.push(dir);

    expect(out.code).toBe(0);
    expect(dir).toBeDefined();
    expect(out.stdout).toMatch(
      /^Ralph complete: the worker reported the objective complete after 3 rounds\./,
    );
    expect(out.stderr).toContain('ralph: round 3/256 reported complete');
    // The rounds did the work in the copy, and the bundled original is untouched.
    const tasks = readFileSync(join(dir as string, 'TASKS.md'), 'utf8');
    expect(tasks).not.toMatch(/^- \[ \] /m);
    expect(tasks.match(/^- \[x\] /gm)).toHaveLength(3);
    expect(readFileSync(join(dir as string, 'SUMMARY.txt'), 'utf8').split('\n')[0]).toBe('2 files, 6 lines');
    const original = new URL('../../examples/demo-workspace/', import.meta.url);
    expect(existsSync(new URL('SUMMARY.txt', original))).toBe(false);
    expect(readFileSync(new URL('TASKS.md', original), 'utf8')).toMatch(/^- \[ \] /m);
  });
});
