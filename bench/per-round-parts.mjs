// What a round of the commandProvider does besides running its child, each step timed alone (N times, median of
// batches), to show where target 3's cost per round goes: the round folder's file work, the spawn in its own
// process group with a bigger environment, and reading the report. Reported for BENCHMARKS.md, not in the table.
// Run: npm run build && node bench/per-round-parts.mjs [--n 200]
import { spawn } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reportJsonSchema } from '../dist/index.js';
import { median, now, numberFlag } from './lib.mjs';

const n = numberFlag('n', 200);

async function timed(label, step) {
  await step();
  const batches = [];
  for (let b = 0; b < 5; b += 1) {
    const start = now();
    for (let i = 0; i < n / 5; i += 1) await step();
    batches.push(((now() - start) * 5) / n);
  }
  console.log(`${median(batches).toFixed(3).padStart(7)} ms  ${label}`);
}

const waitExit = (child) => new Promise((resolve) => child.on('close', resolve));
const report = JSON.stringify({
  status: 'continue',
  summary: 's',
  evidence: [],
  nextSteps: ['n'],
  blocker: null,
});

await timed('round folder: mkdtemp, owner record ×2, schema file, rm -r', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-bench-round-'));
  writeFileSync(
    join(dir, 'owner.json'),
    '{"bootId":"x","pidNamespace":"y","host":{"pid":1,"startTime":"2"}}',
  );
  await writeFile(join(dir, 'report.schema.json'), `${JSON.stringify(reportJsonSchema, null, 2)}\n`);
  writeFileSync(
    join(dir, 'owner.json'),
    '{"bootId":"x","pidNamespace":"y","host":{"pid":1,"startTime":"2"},"group":{}}',
  );
  writeFileSync(join(dir, 'report.json'), report);
  JSON.parse(await readFile(join(dir, 'report.json'), 'utf8'));
  await rm(dir, { recursive: true, force: true });
});
await timed(
  'round folder, synchronous: mkdtempSync, owner ×2, schema, report read, 4 unlinks + rmdir',
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-bench-round-'));
    const owner = join(dir, 'owner.json');
    writeFileSync(owner, '{"bootId":"x","pidNamespace":"y","host":{"pid":1,"startTime":"2"}}');
    writeFileSync(join(dir, 'report.schema.json'), `${JSON.stringify(reportJsonSchema, null, 2)}\n`);
    writeFileSync(owner, '{"bootId":"x","pidNamespace":"y","host":{"pid":1,"startTime":"2"},"group":{}}');
    writeFileSync(join(dir, 'report.json'), report);
    JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    for (const name of ['report.json', 'report.schema.json', 'owner.json']) unlinkSync(join(dir, name));
    rmdirSync(dir);
    return Promise.resolve();
  },
);
{
  // What a round does to its folder now (src/process/round-folder.ts): a spare renamed to a round folder, the
  // group's record written over the padded owner record in place, the report read and unlinked, renamed back.
  const base = mkdtempSync(join(tmpdir(), 'ralph-bench-round-'));
  let dir = `${base}-spare0`;
  renameSync(base, dir);
  const padded = Buffer.from(
    '{"bootId":"x","pidNamespace":"y","host":{"pid":1,"startTime":"2"}}'.padEnd(512),
  );
  writeFileSync(join(dir, 'owner.json'), padded);
  writeFileSync(join(dir, 'report.schema.json'), `${JSON.stringify(reportJsonSchema, null, 2)}\n`);
  let turn = 0;
  await timed(
    'round folder, reused: 2 renames, owner record overwritten in place, report read + unlink',
    () => {
      turn += 1;
      const round = `${base}-round${turn}`;
      renameSync(dir, round);
      const fd = openSync(join(round, 'owner.json'), 'r+');
      writeSync(fd, padded, 0, padded.length, 0);
      closeSync(fd);
      writeFileSync(join(round, 'report.json'), report);
      JSON.parse(readFileSync(join(round, 'report.json'), 'utf8'));
      unlinkSync(join(round, 'report.json'));
      dir = `${base}-spare${turn}`;
      renameSync(round, dir);
      return Promise.resolve();
    },
  );
  await rm(dir, { recursive: true, force: true });
}
await timed('spawn `true`, stdio ignored (floor)', () => waitExit(spawn('true', [], { stdio: 'ignore' })));
await timed('spawn `cat`, three pipes, prompt on stdin', () => {
  const child = spawn('cat', [], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdout.resume();
  child.stderr.resume();
  child.stdin.end('prompt');
  return waitExit(child);
});
await timed('spawn `cat`, three pipes, prompt on stdin, detached, env copied with 6 more vars', () => {
  const env = { ...process.env, A: '1', B: '2', C: '3', D: '4', E: '5', F: '6' };
  const child = spawn('cat', [], { env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdout.resume();
  child.stderr.resume();
  child.stdin.end('prompt');
  return waitExit(child);
});
await timed(
  'spawn `cat`, prompt from a file as stdin, two pipes, detached, env copied with 6 more vars',
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-bench-stdin-'));
    writeFileSync(join(dir, 'prompt'), 'prompt');
    const fd = openSync(join(dir, 'prompt'), 'r');
    const env = { ...process.env, A: '1', B: '2', C: '3', D: '4', E: '5', F: '6' };
    const child = spawn('cat', [], { env, detached: true, stdio: [fd, 'pipe', 'pipe'] });
    closeSync(fd);
    child.stdout.resume();
    child.stderr.resume();
    return waitExit(child).then(() => {
      unlinkSync(join(dir, 'prompt'));
      rmdirSync(dir);
    });
  },
);
