import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const entry = join(root, 'dist', 'index.js');

/**
 * An application that bundles ralph-machine into its own single file runs far from the package: no package.json of
 * ralph-machine above it, no examples/ beside it. Importing the library there must still work; only the example
 * agent, which runs a shipped script, needs the package's files, and says so when it is asked for.
 */
describe('the library bundled into an application in another folder', () => {
  let dir = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ralph-bundled-consumer-'));
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Bundles `source` (which imports 'ralph-machine') with esbuild into one file in `dir` and runs it with node. */
  async function bundleAndRun(name: string, source: string): Promise<string> {
    expect(existsSync(entry), 'run `npm run build` first').toBe(true);
    const input = join(dir, `${name}.src.mjs`);
    const output = join(dir, `${name}.mjs`);
    await writeFile(input, source);
    await build({
      entryPoints: [input],
      outfile: output,
      bundle: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
      // The consumer imports the library by name; here that name is the built entry of this checkout.
      plugins: [
        {
          name: 'ralph-machine',
          setup(b) {
            b.onResolve({ filter: /^ralph-machine$/ }, () => ({ path: entry }));
          },
        },
      ],
      // Bundled CommonJS dependencies call require() for Node's built-ins.
      banner: {
        js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
    });
    const { stdout } = await run(process.execPath, [output], { cwd: dir });
    return stdout.trim();
  }

  it('imports and completes a scripted run', async () => {
    const out = await bundleAndRun(
      'scripted',
      `import { createProviderRegistry, createRalphTool, createScriptedProvider } from 'ralph-machine';
       const providers = createProviderRegistry();
       providers.register(createScriptedProvider([
         { report: { status: 'complete', summary: 'done', evidence: ['ok'], nextSteps: [], blocker: null } },
       ]));
       const tool = createRalphTool({ subagentProvider: 'scripted' }, { providers });
       const envelope = await tool.execute({ objective: 'one round' }, { agent: { id: 'a', cwd: process.cwd() } });
       console.log(JSON.stringify(envelope.result));`,
    );
    expect(JSON.parse(out)).toEqual({
      status: 'complete',
      rounds: 1,
      report: { status: 'complete', summary: 'done', evidence: ['ok'], nextSteps: [], blocker: null },
    });
  });

  it('imports, then refuses the example agent with an error saying why', async () => {
    const out = await bundleAndRun(
      'example',
      `import { exampleAgentProvider } from 'ralph-machine';
       console.log('imported');
       try { exampleAgentProvider(); console.log('created'); } catch (error) { console.log(error.message); }`,
    );
    const [imported, refusal] = out.split('\n');
    expect(imported).toBe('imported');
    expect(refusal).toMatch(
      /^the example agent needs the files of the ralph-machine package, but there is no ralph-machine package\.json above /,
    );
  });
});
