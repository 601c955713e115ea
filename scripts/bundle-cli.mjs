// Bundles the `ralph` bin into dist/hosts/cli/main.js, straight from src/hosts/cli/main.ts, with its runtime
// dependencies inlined. Start-up is dominated by module loading: one file instead of a few hundred ESM modules (zod
// alone is about a hundred) cuts `ralph run`'s time to its first child by about a third (npm run bench:startup). The
// library entry points stay plain tsc output; tsconfig.build.json leaves src/hosts/cli out of it, since the bundle
// inlines those modules and nothing else imports them (tsc still emits any of them a library module imports). The MCP
// SDK and the AI SDK stay external: they load only for the commands that use them, from the installed dependencies;
// so does @viz-js/viz (Graphviz as 1 MB of WASM), which only `ralph viz` loads.
// No source map: the 2 MB map would point at sources the package does not ship (src/, node_modules), and CLI
// failures are reported as messages, not stack traces.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/hosts/cli/main.ts'],
  outfile: 'dist/hosts/cli/main.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.3',
  minify: true,
  external: ['@modelcontextprotocol/sdk', 'ai', '@viz-js/viz'],
  // Bundled CommonJS dependencies (commander, shell-quote) call require() for Node's built-ins.
  banner: {
    js: "import { createRequire as __ralphRequire } from 'node:module'; const require = __ralphRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
