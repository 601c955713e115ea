import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ralph } from '../fixtures/cli-agents/harness.js';
import { ASKED, recordAskedRun } from '../inspect/asked-recording.js';

// `ralph report` and `ralph replay` of a recording of a run that asked a person (`--ask`), made by the engine: the
// page shows the question and the answer as text; the replay ends as the run did.

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const ANSWER = 'Use <Postgres> & keep "v16"';

describe('ralph report and ralph replay of a run that asked', () => {
  it('writes the question and the answer, escaped, on the blocked round; replays to the same envelope', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ralph-report-ask-'));
    dirs.push(dir);
    const run = await recordAskedRun(async () => ({ kind: 'answer', text: ANSWER, by: 'terminal' }));
    if (!run.result.ok) throw run.result.error;
    const file = join(dir, 'run.jsonl');
    await writeFile(file, run.text);

    const out = join(dir, 'run.html');
    const report = await ralph(['report', file, '-o', out]);
    expect(report.code).toBe(0);
    const page = await readFile(out, 'utf8');
    expect(page).toContain('<span class="badge question-answered">answered</span>');
    expect(page).toContain('Use &lt;Postgres&gt; &amp; keep &quot;v16&quot;');
    expect(page).toContain(
      ASKED.replaceAll('&', '&amp;')
        .replaceAll('<', '&lt;')
        .replaceAll('>', '&gt;')
        .replaceAll('"', '&quot;'),
    );
    expect(page).not.toContain('<Postgres>');

    const replay = await ralph(['replay', file, '--json']);
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout)).toEqual(run.result.envelope);
  });
});
