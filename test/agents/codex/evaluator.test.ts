import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verdictJsonSchema } from '../../../src/contract/evaluator-verdict.js';
import { onCleanup } from '../support/cleanups.js';
import { codexHome, codexPath } from '../support/codex-env.js';
import {
  ACCEPT,
  BUGGY_ADD,
  evaluatorWorld,
  expectAcceptedInRoundTwo,
  expectMalformedReject,
  FINDING,
  OBJECTIVE,
  REJECT,
  runJudged,
} from '../support/evaluator-run.js';
import {
  call,
  type ResponsesRequestBody,
  type ScriptedReply,
  say,
  startResponsesServer,
} from '../support/responses-server.js';
import { offeredTools, outputText, toolOutputs } from './harness.js';

/** The last tool output a request hands back to the model, as text. */
const lastOutput = (body: ResponsesRequestBody): string => outputText(toolOutputs(body).at(-1)?.output);

/**
 * A script of the model's replies in order, each given only when the request it answers passes its check (e.g.
 * that the shell output it follows holds the buggy add.js), else an HTTP 599 naming the step, which fails the run.
 */
function checkedSteps(...steps: [check: (body: ResponsesRequestBody) => boolean, reply: ScriptedReply][]) {
  return (body: ResponsesRequestBody, index: number): ScriptedReply => {
    const step = steps[index];
    if (step === undefined)
      return { kind: 'status', status: 599, message: `the script has no reply number ${index + 1}` };
    const [check, reply] = step;
    return check(body)
      ? reply
      : { kind: 'status', status: 599, message: `the request of step ${index + 1} is not the scripted one` };
  };
}

const always = () => true;
/** The model's final message: the verdict as JSON text, as codex's structured output has it. */
const verdictText = (verdict: unknown): ScriptedReply => say(JSON.stringify(verdict));

/** A scripted Responses server and a CODEX_HOME wired to it, with the evaluator's world around them. */
async function codexEvaluatorWorld(script: Parameters<typeof startResponsesServer>[0], userKeys?: string) {
  const world = await evaluatorWorld();
  const server = await startResponsesServer(script);
  onCleanup(() => server.close());
  const home = await codexHome({ baseUrl: server.baseUrl, ...(userKeys === undefined ? {} : { userKeys }) });
  onCleanup(() => home.cleanup());
  const run = () => runJudged(world, home.env, ['--evaluator', 'codex', '--codex-path', codexPath]);
  return { world, server, run };
}

describe('ralph run --evaluator codex: the real codex judges the worker’s claim in its read-only sandbox', () => {
  it('reads add.js, rejects with a finding; the worker fixes it; round 2’s evaluator reads it again and accepts', async () => {
    const { world, server, run } = await codexEvaluatorWorld(
      checkedSteps(
        [always, call('exec_command', { cmd: 'cat add.js' })],
        [(body) => lastOutput(body).includes('a - b'), verdictText(REJECT)],
        [always, call('exec_command', { cmd: 'cat add.js' })],
        [(body) => lastOutput(body).includes('a + b'), verdictText(ACCEPT)],
      ),
    );
    const out = await run();

    // The reject's finding reached round 2's worker through the handoff, which fixed add.js.
    await expectAcceptedInRoundTwo(out, world, 'codex-evaluator');

    const calls = server.requests.filter((logged) => logged.url.startsWith('/v1/responses'));
    expect(calls).toHaveLength(4);
    // Each evaluation is its own codex process, started in the read-only sandbox with the verdict schema file.
    const [first, , second] = calls;
    expect(first!.pid).toEqual(expect.any(Number));
    expect(second!.pid).not.toBe(first!.pid);
    for (const logged of [first!, second!]) {
      const argv = logged.argv ?? [];
      expect(argv[argv.indexOf('--sandbox') + 1]).toBe('read-only');
      expect(argv[argv.indexOf('--output-schema') + 1]).toMatch(/\.json$/);
    }
    for (const [index, { body }] of calls.entries()) {
      const round = index < 2 ? 1 : 2;
      // The verdict schema went out as codex's strict structured-output format: enforced by the model API itself.
      expect(body?.text?.format).toMatchObject({
        type: 'json_schema',
        strict: true,
        schema: verdictJsonSchema,
      });
      expect(offeredTools(body!)).toContain('exec_command');
      // codex tells the model the sandbox it runs in.
      expect(JSON.stringify(body?.input)).toContain('`sandbox_mode` is `read-only`');
      // The prompt holds the objective and that round's worker report; round 2's holds nothing of round 1's.
      const input = JSON.stringify(body?.input);
      expect(input).toContain(OBJECTIVE);
      expect(input).toContain(`WORKER-CLAIM round ${round}`);
      if (round === 2) expect(input).not.toContain(FINDING);
    }
  });

  it('its shell write fails on the read-only file system and its escalation is refused, though the user’s config asks for full access; the workspace stays as it was; its accept completes the run', async () => {
    const write = "printf 'x\\n' > sneaky.txt";
    const { world, server, run } = await codexEvaluatorWorld(
      checkedSteps(
        [always, call('exec_command', { cmd: write })],
        [
          (body) => /Read-only file system/.test(lastOutput(body)),
          call('exec_command', {
            cmd: write,
            sandbox_permissions: 'require_escalated',
            justification: 'write the file',
          }),
        ],
        [
          (body) => lastOutput(body).includes('you cannot ask for escalated permissions'),
          verdictText(ACCEPT),
        ],
      ),
      // The user's own default, which `--sandbox read-only` on the evaluator's argv overrides (and `codex exec`
      // never asks for approval, whatever the config says, so an escalation is refused at once).
      'sandbox_mode = "danger-full-access"',
    );
    const out = await run();

    expect(out.code, out.stderr).toBe(0);
    expect(server.responsesCalls()).toHaveLength(3);
    expect(JSON.parse(out.stdout).result).toMatchObject({
      status: 'complete',
      rounds: 1,
      evaluation: { verdict: 'accept' },
    });
    expect(await readdir(world.workspace)).toEqual(['add.js']);
    expect(await readFile(join(world.workspace, 'add.js'), 'utf8')).toBe(BUGGY_ADD);
  });

  it('a reject with no findings fits the strict JSON Schema, so codex hands it on, and the run fails as malformed', async () => {
    const { world, server, run } = await codexEvaluatorWorld(
      checkedSteps([always, verdictText({ ...REJECT, findings: [] })]),
    );
    const out = await run();

    expect(server.responsesCalls()).toHaveLength(1);
    expectMalformedReject(out);
    expect(await readdir(world.workspace)).toEqual(['add.js']);
  });
});
