import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codexProvider, reportJsonSchema } from '../../../src/index.js';
import { codexPath } from '../support/codex-env.js';
import { checkedReport, readOnlyRound } from '../support/read-only-round.js';
import { call, inOrder, say } from '../support/responses-server.js';
import { codexWorld, outputText, reportText, toolOutputs } from './harness.js';

describe('the codex preset with readOnly runs the real codex in its read-only sandbox', () => {
  it('the model reads the workspace; its shell write fails in the sandbox; its structured report arrives', async () => {
    const world = await codexWorld(
      inOrder(
        call('exec_command', { cmd: 'cat note.txt' }),
        call('exec_command', { cmd: "printf 'changed\\n' > note.txt" }),
        say(reportText(checkedReport('note.txt'))),
      ),
    );
    const note = join(world.workspace, 'note.txt');
    writeFileSync(note, 'original\n');

    const provider = codexProvider({ path: codexPath, baseEnv: world.home.env, readOnly: true });
    const envelope = await readOnlyRound(provider, world.workspace);

    expect(envelope.result).toEqual({ status: 'complete', rounds: 1, report: checkedReport('note.txt') });
    expect(readFileSync(note, 'utf8')).toBe('original\n');
    expect(readdirSync(world.workspace)).toEqual(['note.txt']);
    const calls = world.server.responsesCalls();
    expect(calls).toHaveLength(3);
    // The report schema still went out as codex's structured output format.
    for (const body of calls) expect(body.text?.format?.schema).toEqual(reportJsonSchema);
    // Reading worked; the write came back to the model as a failure.
    const [readOutput] = toolOutputs(world.server.responsesCall(1));
    expect(outputText(readOutput?.output)).toContain('original');
    const writeOutput = toolOutputs(world.server.responsesCall(2)).at(-1);
    expect(outputText(writeOutput?.output)).toMatch(/Read-only file system/);
  });
});
