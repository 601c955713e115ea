import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, test } from 'vitest';
import { ralph } from '../fixtures/cli-agents/harness.js';
import { allText } from '../support/all-text.js';
import { batchScene } from '../support/batch-scene.js';
import type { FakeGitHub } from '../support/fake-github.js';
import { addTeamIssues, fromTeam, startFakeTeam, teamIssueLines } from '../support/fake-github-team.js';
import { tempFolder } from '../support/git-repo.js';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.js';

// `ralph batch --from-github` through the built CLI against a loopback fake of GitHub: which issues become tasks,
// in which order, and that the token given to ralph reaches none of the processes the batch starts, nor its files.

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/batch-agents/${name}`, import.meta.url));
const AGENT = quote([process.execPath, fixture('env-agent.mjs')]);
const CHECK = quote([process.execPath, fixture('env-check.mjs')]);
const TOKEN = 'ghp_fake-token-for-ana-0123456789';

const servers: (FakeGitHub | OtlpReceiver)[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A fake GitHub where ana (the token's owner) and bob may write, mallory may only read. */
const fakeGitHub = (): Promise<FakeGitHub> => startFakeTeam(TOKEN);

/** `ralph batch --from-github acme/app --label ralph` on the fake, in `repo`, with `more` arguments. */
const batchFromFake = (gh: FakeGitHub, repo: string, more: string[], env: NodeJS.ProcessEnv) =>
  ralph(['batch', ...fromTeam(gh), '--cwd', repo, ...more], { cwd: repo, env });

describe('ralph batch --from-github', () => {
  test('takes the issues of authors with write access (after from "depends on"), skips the others saying why, and no agent, verify, recording or trace holds the token', async () => {
    const gh = await fakeGitHub();
    const issues = addTeamIssues(gh);
    const { repo, env } = batchScene([]);
    const dumps = tempFolder('ralph-github-env-');
    const otlp = await startOtlpReceiver();
    servers.push(otlp);
    const done = await batchFromFake(gh, repo, ['--agent-command', AGENT, '--verify', CHECK], {
      ...env,
      GITHUB_TOKEN: TOKEN,
      GH_TOKEN: TOKEN,
      GITHUB_ENTERPRISE_TOKEN: TOKEN,
      GH_ENTERPRISE_TOKEN: TOKEN,
      ENV_DUMP_DIR: dumps,
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    });
    for (const line of teamIssueLines(issues)) expect(done.stderr).toContain(line);
    expect(done.stderr).not.toContain('Not a task');
    // The list comes before the batch starts.
    expect(done.stderr.indexOf('taken as tasks')).toBeLessThan(done.stderr.indexOf(`batch `));
    expect(done.code, done.stderr).toBe(0);
    const dumped = readdirSync(dumps);
    expect(dumped.filter((name) => name.startsWith('agent-')).length).toBeGreaterThanOrEqual(2);
    expect(dumped.filter((name) => name.startsWith('verify-')).length).toBeGreaterThanOrEqual(2);
    for (const name of dumped) {
      const seen = JSON.parse(readFileSync(join(dumps, name), 'utf8')) as Record<string, string>;
      for (const variable of ['GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_ENTERPRISE_TOKEN', 'GH_ENTERPRISE_TOKEN'])
        expect(seen[variable], `${name}: ${variable}`).toBeUndefined();
      expect(JSON.stringify(seen)).not.toContain(TOKEN);
    }
    // The batch's recordings (and every other file ralph left in the repository's .git) and the traces.
    expect(allText(join(repo, '.git', 'ralph'))).not.toContain(TOKEN);
    expect(otlp.spans().length).toBeGreaterThan(0);
    expect(
      JSON.stringify(otlp.spans(), (_key, value) => (typeof value === 'bigint' ? String(value) : value)),
    ).not.toContain(TOKEN);
    expect(done.stdout + done.stderr).not.toContain(TOKEN);
    // Every request but none carried the token as asked: ana's.
    expect(gh.requests.every((request) => request.as === 'ana')).toBe(true);
  });

  test('--from-authors takes only the listed logins and asks GitHub no permission', async () => {
    const gh = await fakeGitHub();
    gh.addIssue({ title: 'Add a', author: 'mallory', body: 'write a.txt a', labels: ['ralph'] });
    gh.addIssue({ title: 'Add b', author: 'bob', body: 'write b.txt b', labels: ['ralph'] });
    const { repo, env } = batchScene([]);
    const editAgent = quote([process.execPath, fixture('edit-agent.mjs')]);
    const done = await batchFromFake(gh, repo, ['--from-authors', 'mallory', '--agent-command', editAgent], {
      ...env,
      GITHUB_TOKEN: TOKEN,
    });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain('its author bob is not in --from-authors');
    expect(gh.requests.some((request) => request.path.includes('/collaborators/'))).toBe(false);
  });

  test('--resume goes on with the tasks the batch took when it started: issues edited since change nothing, and are not read again', async () => {
    const gh = await fakeGitHub();
    const { repo, env } = batchScene([]);
    const hold = join(tempFolder('ralph-github-hold-'), 'hold');
    writeFileSync(hold, '');
    const number = gh.addIssue({
      title: 'Add a',
      author: 'ana',
      body: `write a.txt a\nhang-while ${hold}`,
      labels: ['ralph'],
    });
    const agent = quote([process.execPath, fixture('edit-agent.mjs')]);
    const cut = await batchFromFake(gh, repo, ['--agent-command', agent, '--max-time', '3s'], {
      ...env,
      GITHUB_TOKEN: TOKEN,
    });
    expect(cut.code, cut.stderr).toBe(4);
    const recording = /recording (\S+batch\.jsonl)/.exec(cut.stdout)?.[1] as string;
    expect(recording).toBeDefined();
    // Meanwhile the issue is edited and the hold lifted; the batch resumes with the task as it took it.
    const issue = gh.issues.find((i) => i.number === number);
    if (issue !== undefined) issue.title = 'Something else now';
    rmSync(hold);
    const asked = gh.requests.length;
    const resumed = await batchFromFake(gh, repo, ['--agent-command', agent, '--resume', recording], {
      ...env,
      GITHUB_TOKEN: TOKEN,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      "resuming with the tasks the batch took from acme/app's issues when it started",
    );
    expect(resumed.stdout).toContain(`gh-${number}: landed`);
    expect(gh.requests.length).toBe(asked);
  }, 120_000);

  test('refuses a tasks file and --from-github together, and a bad OWNER/REPO, before asking GitHub', async () => {
    const gh = await fakeGitHub();
    const { repo, tasksFile, env } = batchScene([{ id: 'a', objective: 'write a.txt a' }]);
    const both = await batchFromFake(gh, repo, [tasksFile], { ...env, GITHUB_TOKEN: TOKEN });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('from a tasks file or from --from-github, not both');
    const trusted = await batchFromFake(gh, repo, ['--trust-tasks'], { ...env, GITHUB_TOKEN: TOKEN });
    expect(trusted.code).toBe(2);
    expect(trusted.stderr).toContain("an issue's text is never trusted");
    const bad = await ralph(
      ['batch', '--from-github', 'acme', '--label', 'ralph', '--github-api', gh.url, '--cwd', repo],
      { cwd: repo, env: { ...env, GITHUB_TOKEN: TOKEN } },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--from-github must name a repository as OWNER/REPO');
    expect(gh.requests).toEqual([]);
  });
});
