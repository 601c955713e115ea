// Bundles the `ralph` bin (dist/hosts/cli/main.js, built by tsc) into that same file with its runtime dependencies
// inlined. Start-up is dominated by module loading: one file instead of a few hundred ESM modules (zod alone is about
// a hundred) cuts `ralph run`'s time to its first child by about a third (npm run bench:startup). The library entry
// points stay plain tsc output. The MCP SDK and the AI SDK stay external: they load only for the commands that use
// them, from the installed dependencies.
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/hosts/cli/main.js'],
  outfile: 'dist/hosts/cli/main.js',
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.3',
  minify: true,
  sourcemap: 'linked',
  external: ['@modelcontextprotocol/sdk', 'ai'],
  // Bundled CommonJS dependencies (commander, shell-quote) call require() for Node's built-ins.
  banner: {
    js: "import { createRequire as __ralphRequire } from 'node:module'; const require = __ralphRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
