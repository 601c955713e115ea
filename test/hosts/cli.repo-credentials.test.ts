import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ralph } from '../fixtures/cli-agents/harness.js';
import { tempFolder, tempRepo } from '../support/git-repo.js';

// A remote nobody listens on: were ralph to ask it, git would fail at once and print the URL it was given.
const UNREACHABLE = '127.0.0.1:1/team/app.git';
const WITH_CREDENTIALS = [
  `https://user:PASSWORD@${UNREACHABLE}`,
  `https://PASSWORD@${UNREACHABLE}`,
  `ssh://git:PASSWORD@${UNREACHABLE}`,
];
const NO_DATABASE = 'postgres://nobody@127.0.0.1:1/none';

describe('a --repo URL with a credential in it', () => {
  test.each(WITH_CREDENTIALS)(
    'ralph submit --batch --repo %s is refused (exit 2), the secret never printed',
    async (url) => {
      const side = tempFolder('ralph-repo-credentials-');
      const tasksFile = join(side, 'TASKS.md');
      writeFileSync(tasksFile, '- [ ] write a.txt\n');
      const run = await ralph(
        ['submit', '--batch', tasksFile, '--repo', url, '--agent', 'example', '--database-url', NO_DATABASE],
        { cwd: side },
      );
      expect(run.code, run.stdout + run.stderr).toBe(2);
      expect(run.stderr).toContain('ralph submit --repo "');
      expect(run.stderr).toContain(
        'is refused: it carries a credential (a user name or password before the host): the URL is stored in the fleet database',
      );
      expect(run.stderr).toContain('workers reach the remote with their own credentials');
      expect(run.stdout + run.stderr).not.toContain('PASSWORD');
      expect(run.stderr).not.toContain('cannot reach the database');
    },
    60_000,
  );

  test('ralph batch --rollback <id> --repo URL is refused (exit 2), the password never printed', async () => {
    const repo = tempRepo();
    const run = await ralph(
      ['batch', '--rollback', '20261201-1522-a1b2c3', '--repo', WITH_CREDENTIALS[0] as string],
      {
        cwd: repo,
      },
    );
    expect(run.code, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toContain(
      `ralph batch --repo "https://user:***@${UNREACHABLE}" is refused: it carries a credential`,
    );
    expect(run.stdout + run.stderr).not.toContain('PASSWORD');
  }, 60_000);
});
