import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitHub } from './support/fake-github.js';
import { gitIn, repoWithOrigin } from './support/git-repo.js';
import { isRunning } from './support/processes.js';
import { NO_SANDBOX_PLATFORM } from './support/sandbox.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));

interface PackedFile {
  path: string;
  size: number;
}

/** What `npm pack` would put in the tarball (dist/ was built by `npm test`). */
async function packList(): Promise<{ files: PackedFile[]; unpackedSize: number }> {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root });
  const [packed] = JSON.parse(stdout) as { files: PackedFile[]; unpackedSize: number }[];
  if (packed === undefined) throw new Error('npm pack listed nothing');
  return packed;
}

describe('what the package ships', () => {
  let shipped = new Set<string>();
  beforeAll(async () => {
    shipped = new Set((await packList()).files.map((file) => file.path));
  }, 120_000);

  it('lists in "files" only what exists', async () => {
    const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { files: string[] };
    const missing: string[] = [];
    for (const entry of pkg.files) {
      if (
        !(await readFile(join(root, entry)).then(
          () => true,
          (error: NodeJS.ErrnoException) => error.code === 'EISDIR',
        ))
      )
        missing.push(entry);
    }
    expect(missing).toEqual([]);
  });

  it('ships no source map whose sources it does not ship', async () => {
    const unreadable: string[] = [];
    for (const path of [...shipped].filter((file) => file.endsWith('.map'))) {
      const map = JSON.parse(await readFile(join(root, path), 'utf8')) as {
        sourceRoot?: string;
        sources: string[];
        sourcesContent?: (string | null)[];
      };
      map.sources.forEach((source, i) => {
        const resolved = normalize(join(dirname(path), map.sourceRoot ?? '', source));
        if (!shipped.has(resolved) && typeof map.sourcesContent?.[i] !== 'string')
          unreadable.push(`${path}: ${source}`);
      });
    }
    expect(unreadable).toEqual([]);
  });

  it('ships the CLI as its bundle and the bin that loads it, not the modules the bundle inlines', () => {
    expect([...shipped].filter((file) => file.startsWith('dist/hosts/cli/')).sort()).toEqual([
      'dist/hosts/cli/main.js',
      'dist/hosts/cli/ralph.cjs',
    ]);
  });

  it('ships every module a shipped module imports', async () => {
    const specifiers = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"](\.\.?\/[^'"]+)['"]/gm;
    const unshipped: string[] = [];
    for (const path of [...shipped].filter((file) => /\.(js|d\.ts)$/.test(file))) {
      const source = await readFile(join(root, path), 'utf8');
      for (const [, specifier] of source.matchAll(specifiers)) {
        const target = normalize(join(dirname(path), specifier as string));
        const wanted = path.endsWith('.d.ts') ? target.replace(/\.js$/, '.d.ts') : target;
        if (!shipped.has(wanted)) unshipped.push(`${path} imports ${specifier}`);
      }
    }
    expect(unshipped).toEqual([]);
  });
});

/**
 * Users install tarballs, not the working tree: pack the package (dist/ was built by `npm test`), install the tarball
 * into an empty folder, and use it by name from there.
 */
describe('the package as published', () => {
  let dir = '';

  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'ralph-pack-')));
    await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: root });
    const tarball = (await readdir(dir)).find((name) => name.endsWith('.tgz'));
    if (tarball === undefined) throw new Error('npm pack wrote no tarball');
    await writeFile(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', `./${tarball}`], {
      cwd: dir,
    });
  }, 240_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('imports by name and runs a loop through the public API', async () => {
    const script = `
      import { createProviderRegistry, createRalphTool, createScriptedProvider, ralphMachine, RALPH_GUIDANCE } from 'ralph-machine';
      const providers = createProviderRegistry();
      providers.register(createScriptedProvider([
        { report: { status: 'continue', summary: 'one', evidence: [], nextSteps: ['two'], blocker: null } },
        { report: { status: 'complete', summary: 'two', evidence: ['ok'], nextSteps: [], blocker: null } },
      ]));
      const tool = createRalphTool({ subagentProvider: 'scripted' }, { providers });
      const envelope = await tool.execute({ objective: 'count to two' }, { agent: { id: 'a', cwd: process.cwd() } });
      let refused = '';
      try { await tool.execute({ objective: '' }, { agent: { id: 'a', cwd: process.cwd() } }); } catch (e) { refused = e.message; }
      console.log(JSON.stringify({ result: envelope.result, refused, machine: ralphMachine.id, guidance: RALPH_GUIDANCE.slice(0, 18) }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: dir });
    expect(JSON.parse(stdout)).toEqual({
      result: {
        status: 'complete',
        rounds: 2,
        report: { status: 'complete', summary: 'two', evidence: ['ok'], nextSteps: [], blocker: null },
      },
      refused: 'Ralph objective must be a non-empty string',
      machine: 'ralph',
      guidance: 'Use the ralph tool',
    });
  });

  it('ships type declarations for its exports', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        '-e',
        "const p=require('./node_modules/ralph-machine/package.json');const fs=require('fs');console.log(fs.existsSync('./node_modules/ralph-machine/'+p.exports['.'].types))",
      ],
      { cwd: dir },
    );
    expect(stdout.trim()).toBe('true');
  });

  it('installs a ralph binary that answers --help', async () => {
    const { stdout } = await run(join(dir, 'node_modules', '.bin', 'ralph'), ['--help'], { cwd: dir });
    expect(stdout).toMatch(/run \[options\] \[objective\]/);
  });

  it('installs a ralph viz that writes the visualizations it ships, byte for byte', async () => {
    const out = join(dir, 'viz-out');
    await run(join(dir, 'node_modules', '.bin', 'ralph'), ['viz', '--out', out], { cwd: dir });
    const names = ['ralph.dot', 'ralph.mmd', 'ralph.stately.ts', 'ralph.svg'];
    // The batch's machines are drawn beside the run's.
    for (const stem of ['batch', 'merge-queue'])
      names.push(`${stem}.dot`, `${stem}.mmd`, `${stem}.stately.ts`, `${stem}.svg`);
    names.sort();
    expect((await readdir(out)).sort()).toEqual(names);
    for (const name of names) {
      const shipped = await readFile(join(dir, 'node_modules/ralph-machine/visualizations', name));
      expect(await readFile(join(out, name)), name).toEqual(shipped);
    }
    expect(await readFile(join(out, 'ralph.svg'), 'utf8')).toContain(
      '<g id="state-running.round.awaitingReport" class="node state',
    );
  });

  it('runs a real loop with the installed binary and the example agent on the shipped demo workspace', async () => {
    const workspace = join(dir, 'cli-workspace');
    await cp(join(dir, 'node_modules/ralph-machine/examples/demo-workspace'), workspace, { recursive: true });
    const { stdout } = await run(
      join(dir, 'node_modules', '.bin', 'ralph'),
      ['run', 'Finish every task in TASKS.md', '--agent', 'example', '--cwd', workspace, '--json'],
      { cwd: dir, env: { ...process.env, RALPH_DEPTH: '' } },
    );
    const envelope = JSON.parse(stdout) as {
      agentsStarted: number;
      result: { status: string; rounds: number };
    };
    expect(envelope.result).toMatchObject({ status: 'complete', rounds: 3 });
    expect(envelope.agentsStarted).toBe(3);
    expect(await readFile(join(workspace, 'hello.txt'), 'utf8')).toBe('Hello from a fresh Ralph round!\n');
    expect(await readFile(join(workspace, 'SUMMARY.txt'), 'utf8')).toBe(
      '2 files, 6 lines\nhello.txt: 1 line\nnotes/plan.md: 5 lines\n',
    );
  });

  it.skipIf(NO_SANDBOX_PLATFORM !== undefined)(
    'runs the example agent with --sandbox --sandbox-network none from the installed package (in a temporary folder)',
    async () => {
      const workspace = join(dir, 'sandboxed-workspace');
      await cp(join(dir, 'node_modules/ralph-machine/examples/demo-workspace'), workspace, {
        recursive: true,
      });
      const { stdout } = await run(
        join(dir, 'node_modules', '.bin', 'ralph'),
        [
          'run',
          'Finish every task in TASKS.md',
          '--agent',
          'example',
          '--cwd',
          workspace,
          '--json',
          '--sandbox',
          '--sandbox-network',
          'none',
        ],
        { cwd: dir, env: { ...process.env, RALPH_DEPTH: '' } },
      );
      expect(JSON.parse(stdout)).toMatchObject({ result: { status: 'complete', rounds: 3 } });
      expect(await readFile(join(workspace, 'hello.txt'), 'utf8')).toBe('Hello from a fresh Ralph round!\n');
    },
  );

  it('finds the example agent relative to the installed package, not the working tree', async () => {
    const script = `
      import { cp, mkdtemp } from 'node:fs/promises';
      import { dirname, join, normalize } from 'node:path';
      import { createProviderRegistry, createRalphTool, exampleAgentProvider, exampleAgentScript } from 'ralph-machine';
      const workspace = await mkdtemp(join(process.cwd(), 'ws-'));
      await cp(join(process.cwd(), 'node_modules/ralph-machine/examples/demo-workspace'), workspace, { recursive: true });
      const example = exampleAgentProvider();
      const pids = [];
      const providers = createProviderRegistry();
      providers.register({ ...example, start: async (request, options) => {
        const child = await example.start(request, options);
        pids.push(child.pid);
        return child;
      } });
      const tool = createRalphTool({ subagentProvider: 'example' }, { providers });
      const envelope = await tool.execute({ objective: 'finish TASKS.md' }, { agent: { id: 'a', cwd: workspace } });
      console.log(JSON.stringify({ script: exampleAgentScript(), workspace, pids, status: envelope.result.status, rounds: envelope.result.rounds }));
    `;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dir,
      env: { ...process.env, RALPH_DEPTH: '' },
    });
    const out = JSON.parse(stdout) as {
      script: string;
      workspace: string;
      pids: number[];
      status: string;
      rounds: number;
    };
    expect(out.script).toBe(join(dir, 'node_modules/ralph-machine/examples/agents/checklist-agent.mjs'));
    expect(out).toMatchObject({ status: 'complete', rounds: 3 });
    expect(out.pids).toHaveLength(3);
    expect(out.pids.filter(isRunning)).toEqual([]);
  });
  it('takes tasks from GitHub issues and opens their pull requests with the installed binary (Octokit as shipped)', async () => {
    const token = 'ghp_fake-token-for-the-package-test-01';
    const gh = await startFakeGitHub({
      owner: 'acme',
      repo: 'app',
      tokens: { [token]: { login: 'ana', permission: 'write' } },
      collaborators: { ana: 'write' },
    });
    try {
      const number = gh.addIssue({ title: 'Add a', author: 'ana', body: 'write a.txt A', labels: ['ralph'] });
      const { repo, origin } = repoWithOrigin();
      const agent = fileURLToPath(new URL('./fixtures/batch-agents/edit-agent.mjs', import.meta.url));
      const args = ['batch', '--from-github', 'acme/app', '--label', 'ralph', '--github-api', gh.url];
      args.push('--land', 'pr', '--into', 'main', '--agent-command', `${process.execPath} ${agent}`);
      await run(join(dir, 'node_modules', '.bin', 'ralph'), [...args, '--cwd', repo], {
        cwd: dir,
        env: { ...process.env, GITHUB_TOKEN: token, RALPH_DEPTH: '' },
      });
      expect(gh.pulls).toHaveLength(1);
      expect(gh.pulls[0]).toMatchObject({ head: `ralph/gh-${number}`, base: 'main', draft: false });
      expect(gh.pulls[0]?.body).toContain(`Closes #${number}`);
      expect(gitIn(origin, 'show', `refs/heads/ralph/gh-${number}:a.txt`)).toBe('A');
    } finally {
      await gh.close();
    }
  }, 120_000);
});
