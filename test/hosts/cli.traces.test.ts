import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { type Finished, ralph } from '../fixtures/cli-agents/harness.js';
import { tempFolder, tempRepo } from '../support/git-repo.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';

// With OTEL_EXPORTER_OTLP_ENDPOINT set, `ralph run` sends the run's trace over OTLP/HTTP to it; without it, nothing is
// sent and nothing of OpenTelemetry is loaded. The receiver here decodes what the real exporter sends.

const fixture = (name: string): string =>
  fileURLToPath(new URL(`../fixtures/cli-agents/${name}`, import.meta.url));
const TRACE_AGENT = quote([process.execPath, fixture('trace-agent.mjs')]);
const CHECK_FIXED = quote([process.execPath, fixture('check-fixed.mjs')]);
const FAKE_CLAUDE = fixture('../bin/claude');
const BATCH_AGENT = quote([process.execPath, fixture('../batch-agents/edit-agent.mjs')]);
const BOTH_FILES_CHECK = quote([process.execPath, fixture('../batch-agents/both-files-check.mjs')]);
const MODULE_WATCH = new URL('../fixtures/cli-agents/module-watch.mjs', import.meta.url).href;

const receivers: OtlpReceiver[] = [];
const folders: string[] = [];

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  await Promise.all(folders.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-traces-'));
  folders.push(dir);
  return dir;
}

async function receiver(options: Parameters<typeof startOtlpReceiver>[0] = {}): Promise<OtlpReceiver> {
  const started = await startOtlpReceiver(options);
  receivers.push(started);
  return started;
}

/** The process environment without any OTEL_ or TRACE variable of the machine's, plus `extra`. */
function envWith(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!key.startsWith('OTEL_') && key !== 'TRACEPARENT' && key !== 'TRACESTATE') env[key] = value;
  return { ...env, ...extra };
}

/**
 * A three-round run of the trace agent: round 1 continues, round 2's completion fails the verify command, round 3's
 * passes it. The module watch logs every @opentelemetry module the process loads.
 */
async function threeRounds(
  env: Record<string, string>,
): Promise<{ finished: Finished; ws: string; loaded: string }> {
  const ws = await folder();
  const log = join(await folder(), 'modules.log');
  const finished = await ralph(
    [
      'run',
      'Finish with a verified fix',
      '--max-rounds',
      '5',
      '--agent-command',
      TRACE_AGENT,
      '--verify',
      CHECK_FIXED,
      '--cwd',
      ws,
    ],
    { env: envWith({ ...env, MODULE_WATCH_LOG: log, NODE_OPTIONS: `--import ${MODULE_WATCH}` }) },
  );
  return { finished, ws, loaded: existsSync(log) ? readFileSync(log, 'utf8') : '' };
}

const named = (spans: ReceivedSpan[], name: string): ReceivedSpan[] =>
  spans.filter((span) => span.name === name);

function only(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = named(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0] as ReceivedSpan;
}

describe('ralph run with OTEL_EXPORTER_OTLP_ENDPOINT sends the run as one trace', () => {
  it('nests the rounds under the run, and each child and verify command under its round', async () => {
    const otlp = await receiver();
    const { finished, ws, loaded } = await threeRounds({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint });
    expect(finished.code).toBe(0);
    expect(loaded).toContain('@opentelemetry');

    const spans = otlp.spans();
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const run = only(spans, 'invoke_agent ralph');
    expect(run.parentSpanId).toBe('');
    expect(run.resource['service.name']).toBe('ralph');
    expect(run.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'ralph',
      'ralph.status': 'complete',
      'ralph.rounds': 3,
      'ralph.agents_started': 3,
      'ralph.report.status': 'complete',
      'gen_ai.usage.input_tokens': 600,
      'gen_ai.usage.output_tokens': 60,
    });
    expect(run.attributes['ralph.cost.usd']).toBeCloseTo(0.03, 6);
    expect(run.attributes['ralph.run.id']).toMatch(/\S/);
    expect(run.statusCode).not.toBe(2);

    for (const round of [1, 2, 3]) {
      const roundSpan = only(spans, `ralph.round ${round}`);
      expect(roundSpan.parentSpanId).toBe(run.spanId);
      expect(roundSpan.attributes).toMatchObject({
        'ralph.round': round,
        'ralph.max_rounds': 5,
        'ralph.run.id': run.attributes['ralph.run.id'],
        'ralph.report.status': round === 1 ? 'continue' : 'complete',
      });
      const children = named(spans, 'invoke_agent command').filter(
        (span) => span.attributes['ralph.round'] === round,
      );
      expect(children).toHaveLength(1);
      const child = children[0] as ReceivedSpan;
      expect(child.parentSpanId).toBe(roundSpan.spanId);
      expect(child.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'command',
        'gen_ai.usage.input_tokens': 100 * round,
        'gen_ai.usage.output_tokens': 10 * round,
        'ralph.cost.usd': 0.01,
        'process.exit.code': 0,
      });
      expect(child.attributes['process.pid']).toEqual(expect.any(Number));
      // The agent was started with a TRACEPARENT naming its own span, so what it traces joins the run's trace.
      const traceparent = readFileSync(join(ws, 'ralph-traceparents', `round-${round}`), 'utf8');
      expect(traceparent).toBe(`00-${child.traceId}-${child.spanId}-01`);
    }

    const verifies = named(spans, 'ralph.verify');
    expect(verifies).toHaveLength(2);
    const [failedVerify, passedVerify] = verifies.sort((a, b) => Number(a.startNs - b.startNs)) as [
      ReceivedSpan,
      ReceivedSpan,
    ];
    expect(failedVerify.parentSpanId).toBe(only(spans, 'ralph.round 2').spanId);
    expect(failedVerify.attributes).toMatchObject({ 'ralph.verify.passed': false, 'process.exit.code': 1 });
    expect(failedVerify.statusCode).toBe(2);
    expect(passedVerify.parentSpanId).toBe(only(spans, 'ralph.round 3').spanId);
    expect(passedVerify.attributes).toMatchObject({ 'ralph.verify.passed': true, 'process.exit.code': 0 });
    expect(passedVerify.attributes['process.command_args']).toEqual([
      process.execPath,
      fixture('check-fixed.mjs'),
    ]);
  });

  it('marks a failed run with an error status and its error code', async () => {
    const otlp = await receiver();
    const ws = await folder();
    const finished = await ralph(
      [
        'run',
        'Fail in round one',
        '--agent-command',
        quote([process.execPath, '-e', 'process.exit(3)']),
        '--cwd',
        ws,
      ],
      { env: envWith({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, OTEL_SERVICE_NAME: 'nightly-ralph' }) },
    );
    expect(finished.code).not.toBe(0);
    const spans = otlp.spans();
    const run = only(spans, 'invoke_agent ralph');
    expect(run.resource['service.name']).toBe('nightly-ralph');
    expect(run.statusCode).toBe(2);
    expect(run.attributes).toMatchObject({ 'ralph.status': 'failed', 'ralph.error.code': 'child-failed' });
    const child = only(spans, 'invoke_agent command');
    expect(child.statusCode).toBe(2);
    expect(child.attributes['process.exit.code']).toBe(3);
  });
});

describe('a usage limit waited out is a span of its round', () => {
  it('the limited child, the wait and the child run again, all under round 1', async () => {
    const otlp = await receiver();
    const ws = await folder();
    const finished = await ralph(
      [
        'run',
        'Finish',
        '--agent',
        'claude',
        '--claude-path',
        FAKE_CLAUDE,
        '--cwd',
        ws,
        '--max-rounds',
        '1',
        '--wait-on-limits',
      ],
      {
        env: envWith({
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
          FAKE_CLAUDE_MODE: 'usage-limit-once',
          FAKE_RESETS_IN: '1',
          RALPH_DEPTH: '',
        }),
      },
    );
    expect(finished.code, finished.stderr).toBe(0);
    const spans = otlp.spans();
    const round = only(spans, 'ralph.round 1');
    const wait = only(spans, 'ralph.limit_wait');
    expect(wait.parentSpanId).toBe(round.spanId);
    expect(wait.attributes['ralph.limit.wait_ms']).toEqual(expect.any(Number));
    const children = named(spans, 'invoke_agent claude').sort((a, b) => Number(a.startNs - b.startNs));
    expect(children).toHaveLength(2);
    expect(children.map((child) => child.parentSpanId)).toEqual([round.spanId, round.spanId]);
    expect(children.map((child) => child.attributes['gen_ai.provider.name'])).toEqual([
      'anthropic',
      'anthropic',
    ]);
    const [limited, again] = children as [ReceivedSpan, ReceivedSpan];
    expect(limited.statusCode).toBe(2);
    expect(limited.attributes['error.type']).toBe('UsageLimitError');
    // In the order they happened (span times are not all to the same precision: the starts only).
    expect(limited.startNs < wait.startNs && wait.startNs < again.startNs).toBe(true);
    expect(again.statusCode).not.toBe(2);
    expect(only(spans, 'invoke_agent ralph').attributes['ralph.status']).toBe('complete');
  });
});

/** Runs `ralph batch` of these tasks in a new repository with traces sent to a receiver of its own; its spans. */
async function tracedBatch(
  tasks: { id: string; objective: string }[],
  ...extra: string[]
): Promise<{ finished: Finished; spans: ReceivedSpan[] }> {
  const otlp = await receiver();
  const repo = tempRepo();
  const tasksFile = join(tempFolder('ralph-batch-side-'), 'tasks.json');
  writeFileSync(tasksFile, JSON.stringify(tasks));
  const finished = await ralph(
    ['batch', tasksFile, '--agent-command', BATCH_AGENT, '--cwd', repo, ...extra],
    {
      cwd: repo,
      env: envWith({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint }),
    },
  );
  return { finished, spans: otlp.spans() };
}

describe('ralph batch with OTEL_EXPORTER_OTLP_ENDPOINT sends the batch as one trace', () => {
  it("each task's run and its way through the merge queue are spans of the batch's", async () => {
    const { finished, spans } = await tracedBatch([
      { id: 'first', objective: 'write a.txt from first' },
      { id: 'other', objective: 'write c.txt from other' },
    ]);
    expect(finished.code, finished.stderr).toBe(0);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const batch = only(spans, 'ralph.batch');
    expect(batch.parentSpanId).toBe('');
    expect(batch.attributes['ralph.batch.id']).toMatch(/\S/);
    for (const task of ['first', 'other']) {
      const run = named(spans, 'invoke_agent ralph').find(
        (span) => span.attributes['ralph.task.id'] === task,
      );
      expect(run?.parentSpanId, task).toBe(batch.spanId);
      expect(run?.attributes['ralph.status']).toBe('complete');
      const merge = only(spans, `ralph.merge ${task}`);
      expect(merge.parentSpanId).toBe(batch.spanId);
      expect(merge.attributes['ralph.task.status']).toBe('landed');
      const steps = spans.filter((span) => span.parentSpanId === merge.spanId).map((span) => span.name);
      expect(steps).toEqual(expect.arrayContaining(['ralph.merge.rebase', 'ralph.merge.land']));
    }
  });
});

describe('ralph batch traces a merge whose verify fails on the combined tree', () => {
  it("its ralph.merge.verify span is an error with ralph.verify.passed false, as a round's ralph.verify is", async () => {
    // Each task's tree holds one of x.txt and y.txt, so each loop's verify passes; their combination fails.
    const { finished, spans } = await tracedBatch(
      [
        { id: 'x', objective: 'write x.txt x' },
        { id: 'y', objective: 'write y.txt y' },
      ],
      '--verify',
      BOTH_FILES_CHECK,
    );
    expect(finished.code, finished.stderr).toBe(1);
    const failed = named(spans, 'ralph.merge.verify').filter((span) => span.statusCode === 2);
    expect(failed).toHaveLength(1);
    expect(failed[0]?.attributes['ralph.verify.passed']).toBe(false);
    const passed = named(spans, 'ralph.merge.verify').filter((span) => span.statusCode !== 2);
    expect(passed).toHaveLength(1);
    expect(passed[0]?.attributes['ralph.verify.passed']).toBe(true);
  });
});

describe('a run that asks for no traces sends none and loads nothing of OpenTelemetry', () => {
  it('without the variable: no request, no @opentelemetry module, no TRACEPARENT for the agent', async () => {
    const otlp = await receiver();
    const { finished, ws, loaded } = await threeRounds({});
    expect(finished.code).toBe(0);
    expect(loaded).toBe('');
    expect(otlp.requests()).toBe(0);
    expect(readFileSync(join(ws, 'ralph-traceparents', 'round-1'), 'utf8')).toBe('');
  });

  it('with OTEL_SDK_DISABLED=true, though the endpoint is set', async () => {
    const otlp = await receiver();
    const { finished, loaded } = await threeRounds({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
      OTEL_SDK_DISABLED: 'true',
    });
    expect(finished.code).toBe(0);
    expect(loaded).toBe('');
    expect(otlp.requests()).toBe(0);
  });
});

describe('a receiver that refuses the traces, is down or never answers changes nothing of the run', () => {
  it('prints what it prints without one, and exits the same', async () => {
    const plain = await threeRounds({});
    const refusing = await receiver({ refuseWith: 500 });
    const refused = await threeRounds({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${refusing.endpoint}/v1/traces`,
    });
    expect(refusing.requests()).toBeGreaterThan(0);
    const down = await receiver();
    await down.close();
    const unreachable = await threeRounds({ OTEL_EXPORTER_OTLP_ENDPOINT: down.endpoint });
    // One that takes the spans and never answers: the run still ends, the flush given up at its bound.
    const silent = await receiver({ neverAnswer: true });
    const unanswered = await threeRounds({ OTEL_EXPORTER_OTLP_ENDPOINT: silent.endpoint });
    expect(silent.requests()).toBeGreaterThan(0);
    // What varies from run to run (the run id, how long a verify command took) aside.
    const steady = (text: string): string =>
      text.replace(/after \d+(\.\d+)?m?s/g, 'after <time>').replace(/run \S+/g, 'run <id>');
    for (const traced of [refused, unreachable, unanswered]) {
      expect(traced.finished.code).toBe(plain.finished.code);
      expect(steady(traced.finished.stderr)).toBe(steady(plain.finished.stderr));
      expect(steady(traced.finished.stdout)).toBe(steady(plain.finished.stdout));
    }
  });
});
