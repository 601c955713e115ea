// Shared helpers of the benchmarks: statistics, child launches, temp folders, and the one-line JSON result a
// benchmark prints with --json so that bench/run-all.mjs can put its figures in the table.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

/** The built CLI every CLI benchmark launches. */
export const cli = fileURLToPath(new URL('../dist/hosts/cli/main.js', import.meta.url));

/** True when run by bench/run-all.mjs: print only the JSON line at the end. */
export const jsonMode = process.argv.includes('--json');

/** The value of `--name N` on the command line, else the fallback. */
export function numberFlag(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
}

/** The value of `--name VALUE` on the command line, else undefined. */
export function stringFlag(name) {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
}

/** The median of a list of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The p-th percentile (nearest rank) of a list of numbers. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Milliseconds on a monotonic clock. */
export const now = () => performance.now();

/**
 * The clock a benchmark reads: wall time, or with --cpu this process's CPU time (user + system, `process.cpuUsage`,
 * in ms), which on a loaded machine moves far less with the other processes.
 */
export const clock = process.argv.includes('--cpu')
  ? () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    }
  : now;

/** Logs a line unless the benchmark runs for the table. */
export function log(...parts) {
  if (!jsonMode) console.log(...parts);
}

/** Runs `argv` to its exit; resolves with the wall time in ms; rejects on an exit code outside `okCodes`. */
export function timeProcess(argv, { cwd, env, input, okCodes = [0] } = {}) {
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(argv[0], argv.slice(1), {
      cwd,
      env: env ?? process.env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = now() - started;
      if (okCodes.includes(code)) resolve(ms);
      else reject(new Error(`${argv.join(' ')} exited ${code}:\n${stderr}`));
    });
    if (input !== undefined) child.stdin.end(input);
  });
}

/** Runs `argv` to its exit; resolves with its exit code (or signal), stdout, stderr and the wall time in ms. */
export function runCollecting(argv, { cwd, env } = {}) {
  return new Promise((resolve, reject) => {
    const started = now();
    const child = spawn(argv[0], argv.slice(1), {
      cwd,
      env: env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({ code: code ?? signal, stdout, stderr, ms: now() - started }),
    );
  });
}

/** Makes a temp folder, hands it to `body`, removes it afterwards. */
export async function withTempDir(prefix, body) {
  const dir = await mkdtemp(join(tmpdir(), `ralph-bench-${prefix}-`));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * One row of the table: the figure, its value and unit, the target and whether it is met (`pass` is null for a
 * figure reported for scale only, e.g. a floor).
 */
export function row(figure, value, unit, target, pass, note = '') {
  return { figure, value, unit, target, pass, note };
}

/** Ends a benchmark: prints its rows as one JSON line in --json mode, else as readable lines. */
export function finish(rows) {
  if (jsonMode) {
    console.log(JSON.stringify({ rows }));
    return;
  }
  console.log('');
  for (const r of rows) {
    const verdict = r.pass === null ? '' : r.pass ? 'pass' : 'MISS';
    console.log(`${r.figure}: ${r.value} ${r.unit}  (target ${r.target}) ${verdict} ${r.note}`);
  }
}

/** A report a trivial agent writes: `continue` until the last round, `complete` then. */
export const trivialAgentSource = `let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', () => {
  const last = process.env.RALPH_ROUND !== undefined && process.env.RALPH_ROUND === process.env.RALPH_MAX_ROUNDS;
  const report = JSON.stringify({
    status: last ? 'complete' : 'continue',
    summary: 'read ' + input.length + ' chars',
    evidence: last ? ['the agent ran'] : [],
    nextSteps: last ? [] : ['run again'],
    blocker: null,
  });
  if (process.env.RALPH_REPORT_FILE) require('node:fs').writeFileSync(process.env.RALPH_REPORT_FILE, report);
  else process.stdout.write(report);
});
`;

/** The trivial /bin/sh agent: drains its prompt, writes `continue` to its report file until the last round, then `complete`. */
export const shAgentSource = `cat > /dev/null
if [ "$RALPH_ROUND" = "$RALPH_MAX_ROUNDS" ]; then s=complete; e='["ran"]'; n='[]'; else s=continue; e='[]'; n='["again"]'; fi
printf '{"status":"%s","summary":"round done","evidence":%s,"nextSteps":%s,"blocker":null}' "$s" "$e" "$n" > "$RALPH_REPORT_FILE"
`;

/** A round report that goes on: what the in-process benches' bare provider answers every round. */
export const continueReport = {
  status: 'continue',
  summary: 'step',
  evidence: [],
  nextSteps: ['next'],
  blocker: null,
};

/** A bare in-process provider: the scripted provider keeps every request for tests, which a benchmark must not count. */
export const bareProvider = {
  name: 'bench',
  capabilities: { structuredOutput: true, inheritsParentContext: false },
  async start(request) {
    return { id: `${request.runId}-${request.round}`, report: Promise.resolve(continueReport) };
  },
};
