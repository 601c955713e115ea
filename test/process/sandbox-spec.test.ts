import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RalphSandbox } from '../../src/contract/sandbox.js';
import { foldersNamedBy, HOME_SECRETS, processSandbox } from '../../src/process/sandbox-spec.js';
import { startInGroup } from '../../src/process/start-in-group.js';
import { commitLeftovers } from '../../src/workspace/git-commit.js';
import { gitIn, tempRepo } from '../support/git-repo.js';
import { NO_SANDBOX_PLATFORM, tempDir } from '../support/sandbox.js';

const sandbox: RalphSandbox = { network: 'none', env: ['MY_*'], hide: ['/home/me/.ralph'] };

/** The read-only protection of one git folder: its config and hooks, which ralph's own git would run. */
const protectionOf = (gitDir: string) => [
  join(gitDir, 'config'),
  join(gitDir, 'config.worktree'),
  join(gitDir, 'hooks'),
];

describe('processSandbox', () => {
  it("writes the workspace and what the process needs; binds the CLI's home paths; filters the environment", () => {
    const workspace = tempDir('ralph-spec-ws-');
    const { spec, env } = processSandbox(
      sandbox,
      {
        cwd: workspace,
        writesWorkspace: true,
        writable: ['/tmp/round-1'],
        readOnly: ['/tmp/round-1/owner.json'],
        home: ['.claude', '/etc/agent.json'],
        env: ['ANTHROPIC_*'],
      },
      {
        HOME: '/home/me',
        PATH: '/bin',
        RALPH_BWRAP: '/opt/bwrap',
        ANTHROPIC_API_KEY: 'k',
        MY_SETTING: 'm',
        SECRET: 's',
      },
    );
    expect(spec).toEqual({
      network: 'none',
      home: '/home/me',
      writable: [workspace, '/tmp/round-1'],
      readOnly: ['/tmp/round-1/owner.json'],
      homeBinds: ['/home/me/.claude', '/etc/agent.json'],
      // The home's secrets are hidden again under any bind, before what the run hides itself.
      // The home the system knows (this user's, not /home/me) is hidden too.
      hide: [...HOME_SECRETS.map((path) => `/home/me/${path}`), userInfo().homedir, '/home/me/.ralph'],
      bwrap: '/opt/bwrap',
    });
    expect(env).toEqual({ HOME: '/home/me', PATH: '/bin', ANTHROPIC_API_KEY: 'k', MY_SETTING: 'm' });
  });

  it("binds an evaluator's workspace read-only", () => {
    const workspace = tempDir('ralph-spec-ws-');
    const { spec } = processSandbox(
      sandbox,
      { cwd: workspace, writesWorkspace: false },
      { HOME: '/home/me' },
    );
    expect(spec.writable).toEqual([]);
    expect(spec.readOnly).toEqual([workspace]);
  });

  it("binds a repository's own .git over itself (it cannot be renamed away), its config and hooks read-only", () => {
    const repo = tempRepo();
    const { spec } = processSandbox(sandbox, { cwd: repo, writesWorkspace: true }, { HOME: '/home/me' });
    expect(spec.writable).toEqual([repo, join(repo, '.git')]);
    expect(spec.readOnly).toEqual(protectionOf(join(repo, '.git')));
    // A commondir it plants would point git elsewhere: gone once the process is.
    expect(spec.removeIfMade).toEqual([join(repo, '.git', 'commondir')]);
  });

  it("writes a worktree's git folder and what a commit writes of the common one; the rest is read-only", () => {
    const repo = tempRepo();
    const worktree = join(tempDir('ralph-spec-wt-'), 'task');
    gitIn(repo, 'worktree', 'add', '--quiet', '-b', 'task', worktree);
    const common = join(repo, '.git');
    const gitDir = join(common, 'worktrees', 'task');
    const commits = ['objects', 'refs', 'logs'].map((part) => join(common, part));
    const protectedPaths = [
      join(worktree, '.git'),
      join(gitDir, 'commondir'),
      join(gitDir, 'gitdir'),
      ...protectionOf(gitDir),
      ...protectionOf(common),
    ];

    const { spec } = processSandbox(sandbox, { cwd: worktree, writesWorkspace: true }, { HOME: '/home/me' });

    expect(spec.writable).toEqual([worktree, gitDir, ...commits]);
    expect(spec.readOnly).toEqual([common, ...protectedPaths]);
    // An evaluator of the worktree writes none of it.
    const evaluator = processSandbox(
      sandbox,
      { cwd: worktree, writesWorkspace: false },
      { HOME: '/home/me' },
    );
    expect(evaluator.spec.writable).toEqual([]);
    expect(evaluator.spec.readOnly).toEqual([common, worktree, gitDir, ...commits, ...protectedPaths]);
  });

  it('ignores a .git file that points nowhere', () => {
    const workspace = tempDir('ralph-spec-ws-');
    writeFileSync(join(workspace, '.git'), 'gitdir: /no/such/folder\n');
    const { spec } = processSandbox(sandbox, { cwd: workspace, writesWorkspace: true }, { HOME: '/home/me' });
    expect(spec.writable).toEqual([workspace]);
    expect(spec.readOnly).toEqual([]);
  });
});

describe('foldersNamedBy', () => {
  it('names the existing absolute folders the variables hold', () => {
    const folder = tempDir('ralph-spec-codex-');
    const file = join(folder, 'file');
    writeFileSync(file, '');
    const env = { CODEX_HOME: folder, A_FILE: file, RELATIVE: 'codex', MISSING: join(folder, 'missing') };
    expect(foldersNamedBy(env, ['CODEX_HOME', 'A_FILE', 'RELATIVE', 'MISSING', 'UNSET'])).toEqual([folder]);
  });
});

/** A repository with two worktrees, `task` (the agent's) and `other` (another task's), under a home of their own. */
function worktrees() {
  const repo = tempRepo();
  const parent = tempDir('ralph-spec-wt-');
  const worktree = join(parent, 'task');
  gitIn(repo, 'worktree', 'add', '--quiet', '-b', 'task', worktree);
  gitIn(repo, 'worktree', 'add', '--quiet', '-b', 'other', join(parent, 'other'));
  const home = tempDir('ralph-spec-home-');
  return { repo, worktree, home, marker: join(parent, 'ran-outside') };
}

/** Runs `script` with /bin/sh in the worktree's sandbox, as a command agent's round would. */
async function inSandbox(worktree: string, home: string, script: string) {
  const { spec, env } = processSandbox(
    { network: 'none', env: [], hide: [] },
    { cwd: worktree, writesWorkspace: true },
    { ...process.env, HOME: home },
  );
  const child = await startInGroup(['/bin/sh', '-c', script], {
    cwd: worktree,
    env,
    maxOutputBytes: 64 * 1024,
    graceMs: 1_000,
    sandbox: spec,
  });
  const exit = await child.exited;
  return { code: exit.code, out: exit.stdout.text(), err: exit.stderr.text() };
}

describe.skipIf(NO_SANDBOX_PLATFORM !== undefined)('a sandboxed agent in a git worktree', () => {
  it('commits on its branch', async () => {
    const { repo, worktree, home } = worktrees();
    writeFileSync(join(worktree, 'work.txt'), 'done\n');

    const run = await inSandbox(
      worktree,
      home,
      'git add work.txt && git -c user.name=agent -c user.email=agent@localhost commit --quiet -m "sandboxed work"',
    );

    expect(run.code, run.err).toBe(0);
    expect(gitIn(repo, 'log', '--format=%s', '-1', 'task')).toBe('sandboxed work');
  });

  it('commits on its branch in a worktree of a bare clone, which has no logs folder yet (a fleet worker’s)', async () => {
    const bare = join(tempDir('ralph-spec-bare-'), 'clone.git');
    gitIn(tempDir('ralph-spec-at-'), 'clone', '--quiet', '--bare', tempRepo(), bare);
    const worktree = join(tempDir('ralph-spec-wt-'), 'task');
    gitIn(bare, 'worktree', 'add', '--quiet', '-b', 'task', worktree);
    writeFileSync(join(worktree, 'work.txt'), 'done\n');

    const run = await inSandbox(
      worktree,
      tempDir('ralph-spec-home-'),
      'git add work.txt && git -c user.name=agent -c user.email=agent@localhost commit --quiet -m "sandboxed work"',
    );

    expect(run.code, run.err).toBe(0);
    expect(gitIn(bare, 'log', '--format=%s', '-1', 'task')).toBe('sandboxed work');
  });

  it("plants nothing that ralph's own git, run outside the sandbox afterwards, would run", async () => {
    const { repo, worktree, home, marker } = worktrees();
    // A git folder of the agent's own, whose hook and clean filter leave the marker when git outside runs them.
    const hook = `#!/bin/sh\necho hook > ${marker}\n`;
    const plant = [
      'git init --quiet fake && git -C fake -c user.name=a -c user.email=a@localhost commit --quiet --allow-empty -m fake',
      'git -C fake config filter.evil.clean "sh -c \'echo filter > $MARKER; cat\'"',
      'printf "$HOOK" > fake/.git/hooks/post-commit && chmod +x fake/.git/hooks/post-commit',
      'cp fake/.git/hooks/post-commit hook && echo "* filter=evil" > .gitattributes',
      'gitdir=$(git rev-parse --absolute-git-dir) && common=$(git rev-parse --git-common-dir)',
      'common=$(cd "$common" && pwd)',
    ];
    // Each attempt to make ralph's git read the agent's config or run its hooks; any that works is named.
    const attempts: [string, string][] = [
      ['rewrite the .git file', 'echo "gitdir: $PWD/fake/.git" > .git'],
      ['move the .git file away', 'mv .git moved && echo "gitdir: $PWD/fake/.git" > .git'],
      ['remove the .git file', 'rm -f .git && echo "gitdir: $PWD/fake/.git" > .git'],
      ['rewrite its commondir', 'echo "$PWD/fake/.git" > "$gitdir/commondir"'],
      ['plant a commondir in the common folder', 'echo "$PWD/fake/.git" > "$common/commondir"'],
      ['plant a hook', 'cp hook "$common/hooks/post-commit"'],
      [
        'replace the hooks folder',
        'mv "$common/hooks" "$common/hooks.old" && cp -r fake/.git/hooks "$common/hooks"',
      ],
      ['set core.hooksPath', 'git config core.hooksPath "$PWD/fake/.git/hooks"'],
      ['define the filter', 'git config filter.evil.clean "sh -c \'echo filter > $MARKER; cat\'"'],
      [
        'plant a config.worktree',
        'cp fake/.git/config "$gitdir/config.worktree" && git config extensions.worktreeConfig true',
      ],
      [
        "rewrite the other worktree's commondir",
        'echo "$PWD/fake/.git" > "$common/worktrees/other/commondir"',
      ],
      ["rewrite the other worktree's .git file", 'echo "gitdir: $PWD/fake/.git" > ../other/.git'],
    ];
    const script = [
      ...plant,
      ...attempts.map(([what, how]) => `( ${how} ) 2>/dev/null && echo "worked: ${what}"`),
      'true',
    ].join('\n');

    const run = await inSandbox(worktree, home, `MARKER=${marker} HOOK='${hook}'\n${script}`);

    expect(run.code, run.err).toBe(0);
    expect(run.out).toBe('');
    // What ralph's batch does after a round, outside the sandbox: every git command of it in both worktrees.
    await commitLeftovers(worktree, 'the round left this');
    await commitLeftovers(join(worktree, '..', 'other'), 'the other round left this', { allowEmpty: true });
    expect(existsSync(marker) ? readFileSync(marker, 'utf8') : 'nothing ran').toBe('nothing ran');
    expect(gitIn(repo, 'log', '--format=%s', '-1', 'task')).toBe('the round left this');
    expect(gitIn(repo, 'config', '--list', '--local')).not.toContain('evil');
  });
});
