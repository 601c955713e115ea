import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { idProblem, refComponentProblem } from '../../src/contract/batch-tasks.js';

/** Whether the real git takes `ralph/b/<id>` as a branch name (`git check-ref-format --branch`), outside any repo. */
function gitTakesBranch(id: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('git', ['check-ref-format', '--branch', `ralph/b/${id}`], { cwd: tmpdir() }, (error) =>
      resolve(error === null),
    );
  });
}

// What git's rules turn on, more often than chance would give them: dots, `.lock`, `@{`, slashes, the forbidden
// characters, control characters (not NUL, which no argv can hold), and letters outside ASCII.
const TRICKY = [
  ...['.', '..', '.lock', 'lock', '@', '{', '}', '@{', '/', '-', '_', 'a', 'Z', '0'],
  ...[' ', '~', '^', ':', '?', '*', '[', ']', '\\', '\u0001', '\t', '\u001f', '\u007f', 'é', '\u0085', '😀'],
];
const anyCharacter = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }).filter((c) => c !== '\u0000');
const component = fc.string({
  maxLength: 12,
  unit: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...TRICKY) },
    { weight: 1, arbitrary: anyCharacter },
  ),
});
const idLike = fc.string({ maxLength: 12, unit: fc.constantFrom('a', '0', '-', '_', '.', '.lock', '..') });

describe('a branch name component is checked by the rules of git check-ref-format', () => {
  test('the check takes exactly what git takes as the last component of ralph/b/<id> (no "/" in it)', async () => {
    await fc.assert(
      fc.asyncProperty(component, async (id) => {
        const takenByGit = (await gitTakesBranch(id)) && !id.includes('/');
        expect(refComponentProblem(id) === null, `${JSON.stringify(id)}: ${refComponentProblem(id)}`).toBe(
          takenByGit,
        );
      }),
      { numRuns: 250 },
    );
  }, 120_000);

  test('every task or batch id the check takes, git takes as its branch name', async () => {
    await fc.assert(
      fc.asyncProperty(idLike, async (id) => {
        if (idProblem(id) === null) expect(await gitTakesBranch(id), JSON.stringify(id)).toBe(true);
        else if (/^[a-z0-9][a-z0-9._-]{0,63}$/.test(id))
          expect(await gitTakesBranch(id), JSON.stringify(id)).toBe(false);
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  test('NUL, which no command line can hand git, is refused', () => {
    expect(refComponentProblem('a\u0000b')).toBe('it contains U+0000, which git refuses in a branch name');
  });
});
