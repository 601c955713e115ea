import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { gitPusher } from '../../src/batch/pulls.js';
import { batchCommand } from '../../src/hosts/cli/batch-command.js';
import { batchScene } from '../support/batch-scene.js';
import { gitIn, repoWithOrigin } from '../support/git-repo.js';
import { MemoryGitHub } from '../support/memory-github.js';

const AGENT = quote([
  process.execPath,
  fileURLToPath(new URL('../fixtures/batch-agents/edit-agent.mjs', import.meta.url)),
]);
const FAILS = quote([process.execPath, '-e', 'process.exit(1)']);

// In-process (the entry point passes the Octokit client once it is there): a GitHub kept in memory, a bare remote.
describe('ralph batch --land pr --stack', () => {
  it('pushes each task, opens a ready pull request for the one that passed and a labelled draft for the other', async () => {
    const { repo, origin: bare } = repoWithOrigin();
    const { tasksFile } = batchScene([
      { id: 'gh-1', objective: 'First\nwrite a.txt A' },
      { id: 'gh-2', objective: 'Second\nwrite b.txt B', after: ['gh-1'], verify: FAILS },
    ]);
    const api = new MemoryGitHub();
    const connect = async () => ({
      api,
      repo: { owner: 'o', repo: 'r' },
      login: 'ralph',
      push: gitPusher(repo, bare),
    });
    const options = {
      agentCommand: AGENT,
      cwd: repo,
      into: 'main',
      land: 'pr',
      stack: true,
      trustTasks: true,
      maxRounds: '2',
    };
    const code = await batchCommand(tasksFile, options, [], connect);
    expect(code).toBe(1);
    expect(gitIn(repo, 'rev-parse', 'main')).toBe(gitIn(bare, 'rev-parse', 'main'));
    const [first, second] = api.pulls;
    expect(api.pulls).toHaveLength(2);
    expect(first).toMatchObject({ draft: false, base: 'main', title: 'First' });
    expect(first?.body).toContain('Closes #1');
    expect(second).toMatchObject({ draft: true, base: first?.head });
    expect(second?.body).not.toContain('Closes #');
    expect(second?.body).toContain('stopped at its budget');
    expect(api.labels.get(second?.number ?? 0)).toEqual(['ralph: needs-review']);
    for (const pull of api.pulls)
      expect(gitIn(bare, 'rev-parse', `refs/heads/${pull.head}`)).toMatch(/^[0-9a-f]{40}$/);
    expect(api.issueComments.get(1)).toHaveLength(1);
    expect(api.issueComments.get(2)).toHaveLength(1);
    // Stacked, the second task started on the first's branch: its work is there under it.
    expect(first?.head).toBe('ralph/gh-1');
    expect(gitIn(bare, 'show', `refs/heads/${second?.head}:a.txt`)).toBe('A');
  }, 120_000);
});
