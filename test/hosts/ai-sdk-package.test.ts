import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

/** Every bare module specifier the source files reachable from `entry` import, statically or dynamically. */
async function bareImportsReachableFrom(entry: string): Promise<Set<string>> {
  const bare = new Set<string>();
  const seen = new Set<string>();
  const pending = [entry];
  const specifiers = /(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const source = await readFile(file, 'utf8');
    for (const [, specifier] of source.matchAll(specifiers)) {
      if (specifier === undefined) continue;
      if (specifier.startsWith('.'))
        pending.push(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
      else bare.add(specifier);
    }
  }
  return bare;
}

describe('the AI SDK is an optional peer dependency', () => {
  it('is declared as an optional peer (^6, which runs on Node 20) and kept as a dev dependency for the tests', async () => {
    const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
    expect(pkg.peerDependencies).toMatchObject({ ai: '^6.0.0' });
    expect(pkg.peerDependenciesMeta).toMatchObject({ ai: { optional: true } });
    expect(pkg.devDependencies.ai).toMatch(/^6\./);
    expect(pkg.dependencies?.ai).toBeUndefined();
    expect(pkg.exports['./ai-sdk']).toEqual({ types: './dist/ai-sdk.d.ts', import: './dist/ai-sdk.js' });
  });

  it('is never imported by anything the package root reaches; only the ai-sdk entry imports it', async () => {
    const fromRoot = await bareImportsReachableFrom(path.join(root, 'src/index.ts'));
    expect([...fromRoot].filter((name) => name === 'ai' || name.startsWith('ai/'))).toEqual([]);
    expect(fromRoot.has('xstate')).toBe(true); // the walk does see the root's own dependencies

    const fromAiSdk = await bareImportsReachableFrom(path.join(root, 'src/ai-sdk.ts'));
    expect(fromAiSdk.has('ai')).toBe(true);
  });

  it('built: the root loads without the AI SDK, and ralph-machine/ai-sdk exports the provider and the tools', async () => {
    expect(existsSync(path.join(root, 'dist/ai-sdk.js')), 'run `npm run build` first').toBe(true);
    const dir = await mkdtemp(path.join(tmpdir(), 'ralph-ai-sdk-pkg-'));
    try {
      // A resolve hook that fails the import of the root if anything it loads asks for the AI SDK.
      const hooks = path.join(dir, 'hooks.mjs');
      await writeFile(
        hooks,
        `export async function resolve(specifier, context, next) {
           if (specifier === 'ai' || specifier.startsWith('ai/'))
             throw new Error('the AI SDK was loaded from ' + context.parentURL);
           return next(specifier, context);
         }`,
      );
      const script = `
        import { register } from 'node:module';
        register(${JSON.stringify(pathToFileURL(hooks).href)});
        const rootExports = await import('ralph-machine');
        const aiSdk = await import('ralph-machine/ai-sdk').catch((error) => ({ error: error.message }));
        console.log(JSON.stringify({ root: typeof rootExports.createRalphTool, aiSdk: Object.keys(aiSdk).sort() }));
      `;
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
      // The hook blocks the AI SDK everywhere, so the ai-sdk entry itself must fail to load: proof the hook works.
      expect(JSON.parse(stdout)).toEqual({ root: 'function', aiSdk: ['error'] });

      const { stdout: entry } = await run(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          "const m = await import('ralph-machine/ai-sdk'); console.log(Object.keys(m).sort().join(','))",
        ],
        { cwd: root },
      );
      expect(entry.trim()).toBe(
        'AI_SDK_CHILD_SYSTEM,aiSdkProvider,ralphAiSdkTool,ralphAiSdkTools,ralphAnswerTool,ralphBatchAiSdkTool',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
