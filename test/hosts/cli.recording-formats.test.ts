import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeWorkspace, PLAN_AGENT_COMMAND, ralph } from '../fixtures/cli-agents/harness.js';
import { FIXTURE_FORMATS, RECORDINGS_DIR, SETTLED_RUNS } from '../fixtures/recordings/formats.js';
import { cleanEnv } from '../support/processes.js';

const folders: string[] = [];

afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-formats-'));
  folders.push(dir);
  return dir;
}

const fixture = (name: string, file: string) => join(RECORDINGS_DIR, name, file);

describe.each(FIXTURE_FORMATS)(
  'ralph replay, report and resume of a $folder recording',
  ({ folder: name, format }) => {
    it.each(SETTLED_RUNS)(
      'ralph replay $file prints the run and exits with its code',
      async ({ file, ending, code }) => {
        const replayed = await ralph(['replay', fixture(name, file), '--json'], { env: cleanEnv() });
        expect(replayed.code).toBe(code);
        const printed = JSON.parse(replayed.stdout) as {
          result?: { status: string };
          error?: { code: string };
        };
        expect(printed.result?.status ?? printed.error?.code).toBe(ending);
        expect(replayed.stderr).toContain('ralph: round 2/3 started');
      },
    );

    it('ralph report writes the page, naming the format and machine that wrote the recording', async () => {
      const page = join(await folder(), 'run.html');
      const reported = await ralph(['report', fixture(name, 'complete.jsonl'), '-o', page], {
        env: cleanEnv(),
      });
      expect(reported.code).toBe(0);
      expect(readFileSync(page, 'utf8')).toContain(`format 1, machine <code>${format.machineHash}</code>`);
    });

    it('ralph resume continues the interrupted run from round 2 with the agent given, and records it today', async () => {
      const workspace = await makeWorkspace(['complete']);
      folders.push(workspace.dir);
      const recording = join(await folder(), 'run.jsonl');
      copyFileSync(fixture(name, 'interrupted.jsonl'), recording);
      const resumed = await ralph(
        ['resume', recording, '--agent-command', PLAN_AGENT_COMMAND, '--cwd', workspace.dir, '--json'],
        { env: cleanEnv() },
      );
      expect(resumed.stderr).toContain('from round 2');
      expect(resumed.code).toBe(0);
      const envelope = JSON.parse(resumed.stdout) as {
        agentsStarted: number;
        result: { status: string; rounds: number };
      };
      expect(envelope.result).toMatchObject({ status: 'complete', rounds: 2 });
      expect(envelope.agentsStarted).toBe(3);
      expect(workspace.pidOf(1)).toBeUndefined();
      expect(JSON.parse(readFileSync(recording, 'utf8').split('\n')[0] as string)).toMatchObject({
        formatVersion: 3,
      });
    });
  },
);

describe('a recording of a newer format', () => {
  it('is refused by ralph replay, report and resume (exit 2), naming the format version it needs', async () => {
    const dir = await folder();
    const file = join(dir, 'run.jsonl');
    const text = readFileSync(fixture('v1-ask', 'complete.jsonl'), 'utf8');
    writeFileSync(
      file,
      text.replace(
        '"formatVersion":1,"packageVersion":"0.1.0"',
        '"formatVersion":4,"packageVersion":"0.3.0"',
      ),
    );
    const needed =
      'line 1: the recording has format version 4, written by ralph-machine 0.3.0; this ralph reads format versions ' +
      '1 to 3: read it with a ralph that reads format version 4';
    for (const args of [
      ['replay', file],
      ['report', file, '-o', join(dir, 'run.html')],
      ['resume', file],
    ]) {
      const refused = await ralph(args, { env: cleanEnv() });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(needed);
    }
  });
});
