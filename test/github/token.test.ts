import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RalphError } from '../../src/contract/errors.js';
import { ghAuthToken, githubToken } from '../../src/github/token.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A stand-in `gh` program: a shell script with this body. */
async function fakeGh(body: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-gh-'));
  dirs.push(dir);
  const program = join(dir, 'gh');
  await writeFile(program, `#!/bin/sh\n${body}\n`);
  await chmod(program, 0o755);
  return program;
}

const noGh = async () => null;

describe('githubToken', () => {
  it('takes GITHUB_TOKEN first, then GH_TOKEN, then the GitHub CLI', async () => {
    expect(await githubToken({ GITHUB_TOKEN: 'a', GH_TOKEN: 'b' }, async () => 'c')).toBe('a');
    expect(await githubToken({ GITHUB_TOKEN: ' ', GH_TOKEN: 'b' }, async () => 'c')).toBe('b');
    expect(await githubToken({}, async () => 'c')).toBe('c');
  });

  it('refuses, naming the three ways, when there is no token', async () => {
    const refused = await githubToken({}, noGh).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RalphError);
    expect((refused as RalphError).code).toBe('refused');
    expect((refused as RalphError).message).toMatch(/GITHUB_TOKEN.*GH_TOKEN.*gh auth login/);
  });
});

describe('ghAuthToken', () => {
  it("reads the CLI's token, asking it `auth token` without a shell", async () => {
    const program = await fakeGh('[ "$1 $2" = "auth token" ] && echo "gho_fromcli" || exit 3');
    expect(await ghAuthToken(program)).toBe('gho_fromcli');
  });

  it('gives null when the CLI is missing, not logged in, or does not answer in time', async () => {
    expect(await ghAuthToken(join(tmpdir(), 'no-such-gh-program'))).toBeNull();
    expect(await ghAuthToken(await fakeGh('echo "not logged in" >&2; exit 1'))).toBeNull();
    expect(await ghAuthToken(await fakeGh('exec sleep 30'), 200)).toBeNull();
  });
});
