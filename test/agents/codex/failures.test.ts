import { describe, expect, it } from 'vitest';
import { WORKFLOW_CANCELLED } from '../../../src/index.js';
import { isRunning, until } from '../../support/processes.js';
import { processesWithEnv } from '../support/agent-processes.js';
import { codexPath } from '../support/codex-env.js';
import {
  assistantMessageEvents,
  inOrder,
  responseCreated,
  type ScriptedReply,
  say,
} from '../support/responses-server.js';
import { codexWorld } from './harness.js';

/** The last line ralph wrote to stderr. */
const lastLine = (text: string): string => text.trimEnd().split('\n').at(-1) ?? '';

describe('a codex round that does not end in a good report fails the run, through the real program', () => {
  it('a final message that is prose, not JSON, is a malformed report read from codex’s -o file', async () => {
    const world = await codexWorld(inOrder(say('I wrote the note. All done!')));
    const out = await world.ralphRun('Write note.txt').finished;

    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    // The error names the report file: codex wrote its final message there, and ralph did not fall back to stdout.
    expect(out.stderr).toMatch(
      /^ralph: no --max-rounds given: up to 256 rounds \(the ceiling\); pass --max-rounds N to cap a paid agent\nralph: round 1\/256 started\nRalph workflow failed: round 1 report is malformed: the report file \/\S+\/ralph-round-[^/]+\/report\.json is not JSON: Unexpected token 'I', "I wrote th"\.\.\. is not valid JSON\n/,
    );
  });

  it('a report that breaks the status rules (continue with no next steps) is malformed', async () => {
    const world = await codexWorld(
      inOrder(
        say(
          JSON.stringify({
            status: 'continue',
            summary: 'more to do',
            evidence: [],
            nextSteps: [],
            blocker: null,
          }),
        ),
      ),
    );
    const out = await world.ralphRun('Write note.txt').finished;

    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      [
        // Run without --max-rounds: the cap note comes first (once, before round 1).
        'ralph: no --max-rounds given: up to 256 rounds (the ceiling); pass --max-rounds N to cap a paid agent',
        'ralph: round 1/256 started',
        // The detail says only what the message already says: it is not printed again.
        'Ralph workflow failed: round 1 report is malformed: nextSteps: a continue report must list next steps',
        '',
      ].join('\n'),
    );
  });

  it.each<[string, ScriptedReply, RegExp]>([
    [
      'answers 500',
      { kind: 'status', status: 500, message: 'the scripted model is down' },
      /^ERROR: We’re currently experiencing high demand/,
    ],
    [
      'closes the stream mid-way',
      { kind: 'cut', events: [responseCreated('resp_cut'), ...assistantMessageEvents('{"status":"con')] },
      /^ERROR: stream disconnected before completion/,
    ],
  ])(
    'a model server that %s fails the round as a child failure with no handoff',
    async (_, reply, codexSaid) => {
      const world = await codexWorld(() => reply);
      const out = await world.ralphRun('Write note.txt').finished;

      expect(out.code).toBe(1);
      expect(out.stderr).toContain(
        [
          'ralph: round 1/256 started',
          'Ralph round 1 child failed before producing a structured report.',
          'No previous handoff was available.',
          `agent command "${codexPath}" exited with code 1; stderr ends with:`,
        ].join('\n'),
      );
      // The detail ends with what codex said about the model server.
      expect(lastLine(out.stderr)).toMatch(codexSaid);
      // codex did not retry: the provider allows none.
      expect(world.server.responsesCalls()).toHaveLength(1);
    },
  );

  it('Ctrl-C mid-round cancels the run and leaves no codex process', async () => {
    const world = await codexWorld(() => ({ kind: 'hold', events: [responseCreated('resp_held')] }));
    const run = world.ralphRun('Write note.txt');
    await world.server.waitForCalls(1);
    const ralphPid = run.child.pid ?? -1;
    const codexPids = processesWithEnv(`CODEX_HOME=${world.home.dir}`, ralphPid);
    expect(codexPids.length).toBeGreaterThan(0);

    run.child.kill('SIGINT');
    const out = await run.finished;

    expect(out.code).toBe(130);
    expect(lastLine(out.stderr)).toBe(WORKFLOW_CANCELLED);
    expect(out.stdout).toBe('');
    await until(() => codexPids.every((pid) => !isRunning(pid)), 'every codex process to be gone');
    expect(processesWithEnv(`CODEX_HOME=${world.home.dir}`, ralphPid)).toEqual([]);
  });
});
