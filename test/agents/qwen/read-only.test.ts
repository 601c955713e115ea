import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { qwenProvider } from '../../../src/index.js';
import { call, inOrder } from '../support/chat-server.js';
import { qwenPath } from '../support/qwen-env.js';
import { checkedReport, readOnlyRound } from '../support/read-only-round.js';
import { qwenWorld } from './harness.js';

describe('the qwen preset with readOnly runs the real qwen in approval mode plan', () => {
  it('the model reads the workspace; its write_file is refused; its structured report arrives', async () => {
    const world = await qwenWorld((workspace) =>
      inOrder(
        call('read_file', { file_path: join(workspace, 'note.txt') }),
        call('write_file', { file_path: join(workspace, 'note.txt'), content: 'changed\n' }),
        call('structured_output', checkedReport('note.txt')),
      ),
    );
    const note = join(world.workspace, 'note.txt');
    writeFileSync(note, 'original\n');

    const provider = qwenProvider({ path: qwenPath, baseEnv: world.home.env, readOnly: true });
    const envelope = await readOnlyRound(provider, world.workspace);

    expect(envelope.result).toEqual({ status: 'complete', rounds: 1, report: checkedReport('note.txt') });
    expect(readFileSync(note, 'utf8')).toBe('original\n');
    expect(readdirSync(world.workspace)).toEqual(['note.txt']);
    // Reading worked; the write came back to the model as declined.
    const [readResult, writeResult] = (world.server.calls[2]?.messages ?? [])
      .filter((message) => message.role === 'tool')
      .map((message) => JSON.stringify(message.content));
    expect(readResult).toContain('original');
    expect(writeResult).toContain(
      'Qwen Code requires permission to use \\"write_file\\", but that permission was declined',
    );
  });
});
