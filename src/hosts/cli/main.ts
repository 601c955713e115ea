#!/usr/bin/env node
// The `ralph` bin. Kept to one import: each command loads what it needs when it runs.
import { runCli } from './program.js';

// A reader that went away (`ralph run … | head`) is no failure of the run: the run still ends as it ends, with its
// own exit code, and what is left of the output goes nowhere.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
});

process.exitCode = await runCli(process.argv);
