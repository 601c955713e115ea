// The `ralph` CLI itself, bundled by scripts/bundle-cli.mjs into dist/hosts/cli/ralph.cjs, which the bin
// (code-cache-loader.ts, built to dist/hosts/cli/main.js) compiles with V8's code cache. Kept to one import: each
// command loads what it needs when it runs. No top-level await: the bundle is CommonJS, so that it can be compiled as a
// script with cached data; `tsx src/hosts/cli/main.ts` still runs it directly.
import { runCli } from './program.js';

// A reader that went away (`ralph run … | head`) is no failure of the run: the run still ends as it ends, with its
// own exit code, and what is left of the output goes nowhere.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
});

void runCli(process.argv).then((code) => {
  process.exitCode = code;
});
