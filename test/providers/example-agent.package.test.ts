import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRunning } from './processes.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The example agent's script is found relative to the installed package, not the working tree: pack the package
 * (dist/ is built by `npm test`), install the tarball, and run the demo from there.
 */
describe('the example agent from an installed package', () => {
  let dir = '';

  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'ralph-example-pack-')));
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

  it('finishes a copy of the shipped demo workspace with exampleAgentProvider', async () => {
    const script = `
      import { cp, mkdtemp } from 'node:fs/promises';
      import { join } from 'node:path';
      import { createProviderRegistry, createRalphTool, exampleAgentProvider, EXAMPLE_AGENT_SCRIPT } from 'ralph-machine';
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
      console.log(JSON.stringify({ script: EXAMPLE_AGENT_SCRIPT, workspace, pids, status: envelope.result.status, rounds: envelope.result.rounds }));
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
    expect(out.status).toBe('complete');
    expect(out.rounds).toBe(3);
    expect(await readFile(join(out.workspace, 'SUMMARY.txt'), 'utf8')).toBe(
      '2 files, 6 lines\nhello.txt: 1 line\nnotes/plan.md: 5 lines\n',
    );
    expect(out.pids).toHaveLength(3);
    expect(out.pids.filter(isRunning)).toEqual([]);
  });
});
