// Bundles the `ralph` CLI into dist/hosts/cli/ralph.cjs, straight from src/hosts/cli/main.ts, with its runtime
// dependencies inlined, and builds the bin, dist/hosts/cli/main.js, from src/hosts/cli/code-cache-loader.ts: a small
// loader that compiles the bundle with V8's code cache. Start-up is dominated by module loading: one file instead of a
// few hundred ESM modules (zod alone is about a hundred) cuts `ralph run`'s time to its first child by about a third,
// and the code cache saves compiling that file on every start (npm run bench:startup).
// The bundle is CommonJS because only a script can be compiled with cached data (vm.Script); `import.meta.url` in it
// stands for the bundle's own file (scripts/import-meta-url-shim.js), which is how the package's files are found.
// The library entry points stay plain tsc output; tsconfig.build.json leaves src/hosts/cli out of it, since the bundle
// inlines those modules and nothing else imports them (tsc still emits any of them a library module imports). The MCP
// SDK and the AI SDK stay external: they load only for the commands that use them, from the installed dependencies;
// so does @viz-js/viz (Graphviz as 1 MB of WASM), which only `ralph viz` loads, and the DBOS SDK, which only the
// fleet's commands (worker, submit, status, wait, cancel, runs) load, and yaml, which only `ralph batch` with a YAML
// tasks file loads (inlined, it would add 115 kB, a seventh, to every command's bundle). The OpenTelemetry SDK loads
// only for a run whose environment asks for traces (OTEL_EXPORTER_OTLP_ENDPOINT; src/trace/).
// No source map: the 2 MB map would point at sources the package does not ship (src/, node_modules), and CLI
// failures are reported as messages, not stack traces.
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { build } from 'esbuild';

const bundle = 'dist/hosts/cli/ralph.cjs';

const externals = [
  '@modelcontextprotocol/sdk',
  'ai',
  '@viz-js/viz',
  '@dbos-inc/dbos-sdk',
  '@opentelemetry/api',
  '@opentelemetry/core',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
  'yaml',
];
const built = await build({
  entryPoints: ['src/hosts/cli/main.ts'],
  outfile: bundle,
  write: false,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20.3',
  minify: true,
  external: externals,
  inject: ['scripts/import-meta-url-shim.js'],
  define: { 'import.meta.url': 'importMetaUrl' },
  logLevel: 'warning',
});

// A script compiled by vm.Script cannot import() on Node 20 (not without --experimental-vm-modules), so the
// bundle's dynamic imports, all of them of the external packages, call the loader's import() instead, which the loader
// hands the bundle as `__ralphImport`.
let imports = 0;
const esbuildOutput = built.outputFiles[0].text;
const strict = '"use strict";';
if (!esbuildOutput.startsWith(strict)) throw new Error('the CLI bundle does not start with "use strict"');
const body = esbuildOutput
  .slice(strict.length)
  .replace(/\bimport\((["'])([^"']+)\1\)/g, (_call, _quote, specifier) => {
    if (!externals.some((name) => specifier === name || specifier.startsWith(`${name}/`))) {
      throw new Error(`the CLI bundle imports ${specifier} dynamically, which is not an external package`);
    }
    imports += 1;
    return `__ralphImport(${JSON.stringify(specifier)})`;
  });
if (imports === 0 || /\bimport\(/.test(body)) {
  throw new Error('the CLI bundle has a dynamic import the loader cannot serve');
}
// Required the plain way (Node's own compile cache, Node 22.1 and later), the bundle has no __ralphImport parameter
// and imports natively. After "use strict", which must stay the first statement to keep the bundle strict.
const code = `${strict}var __ralphImport=__ralphImport||(s=>import(s));${body}`;
await mkdir('dist/hosts/cli', { recursive: true });
await writeFile(bundle, code);
const hash = createHash('sha256').update(code).digest('hex');

await build({
  entryPoints: ['src/hosts/cli/code-cache-loader.ts'],
  outfile: 'dist/hosts/cli/main.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.3',
  define: { RALPH_BUNDLE_HASH: JSON.stringify(hash) },
  logLevel: 'warning',
});
