#!/usr/bin/env node
// The `ralph` bin. Kept to one import: each command loads what it needs when it runs.
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv);
