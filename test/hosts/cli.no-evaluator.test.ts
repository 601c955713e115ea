import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateOneRoundActor } from '../../src/inspect/migrations/v2-to-v3.js';
import { CLI } from '../fixtures/cli-agents/harness.js';
import { FIXED_RUNS, GOLDEN_DIR, GOLDEN_FILES, MODES, runFixed } from '../fixtures/no-evaluator/runs.js';
import { completeReport, continueReport } from '../support/round-reports.js';
import { agent, scriptedTool } from '../support/tool.js';

/**
 * Issue 31's promise: a run without --evaluator is byte for byte the same as before the evaluator existed. The
 * goldens in test/fixtures/no-evaluator/golden were printed and recorded by the CLI built at 4100826, the commit
 * before "An independent evaluator: --evaluator …" (make-goldens.ts says how to make them again). Each fixed run
 * (complete, budget-limited, a failed child, a verify that refuses one completion) runs here with today's build and
 * must match them exactly: the text result and its progress lines, the `--json` envelope, the exit code and the
 * `--record` recording, every context, event and snapshot in it.
 *
 * Only what must vary is normalized, alike on both sides (runs.ts): run ids, clock readings, the verify command's
 * measured duration, process ids, and the absolute paths of the temp workspace, the fixtures and node. In the
 * recording, the ralph machine's serialized definition and its `machineHash` are normalized too: they describe
 * the chart, which necessarily changed when the evaluator's states were added to it, whether or not a run enters
 * them. Everything the run itself did (its snapshots' context, its events, its envelope) is compared as it was.
 */
/**
 * A golden recording of the two-actor round in today's words (issue 35: one actor a round), by the migration that
 * reads such recordings; its lines are numbered again (a line's id is its number), as today's build numbers them.
 */
function oneRoundActor(text: string): string {
  const [header, ...lines] = text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  if (header === undefined) return text;
  const migrated = migrateOneRoundActor({
    header,
    lines: lines.map((line, index) => ({ number: index + 2, line })),
  });
  const renumbered = migrated.lines.map(({ line }, index) =>
    typeof line.id === 'string' ? { ...line, id: String(index + 2) } : line,
  );
  return [header, ...renumbered].map((line) => `${JSON.stringify(line)}\n`).join('');
}

const cases = FIXED_RUNS.flatMap((run) => MODES.map((mode) => ({ ...run, run, mode })));

describe('a run without --evaluator prints and records what it did before the evaluator existed', () => {
  it.each(cases)(
    '$name, $mode (exit $code)',
    async ({ run, mode }) => {
      const outputs = await runFixed(CLI, run, mode);
      for (const file of GOLDEN_FILES[mode]) {
        const text = readFileSync(join(GOLDEN_DIR, run.name, file), 'utf8');
        const golden = file === 'recording.jsonl' ? oneRoundActor(text) : text;
        expect(outputs.files[file], `${run.name}/${file}`).toBe(golden);
      }
      expect(outputs.code).toBe(run.code);
    },
    60_000,
  );
});

/** The keys of an object and of its `result`, in order, the ones whose value is undefined included. */
const envelopeKeys = (envelope: object) => ({
  envelope: Object.keys(envelope),
  result: Object.keys((envelope as { result: object }).result),
});

// JSON drops a key whose value is undefined, so the prints above cannot see one; a library caller can
// (`Object.keys`, `'evaluation' in result`, a strict equality), so its envelope is held to the golden's keys.
describe("a library caller's envelope without an evaluator has the keys it had before the evaluator", () => {
  it.each([
    { name: 'complete', steps: [{ report: continueReport() }, { report: completeReport() }] },
    { name: 'budget-limited', steps: [{ report: continueReport() }] },
  ])('$name', async ({ name, steps }) => {
    const { tool } = scriptedTool(steps);
    const envelope = await tool.execute({ objective: 'Tick every box', maxRounds: 2 }, { agent });
    const golden = JSON.parse(readFileSync(join(GOLDEN_DIR, name, 'json.stdout.txt'), 'utf8'));
    expect(envelopeKeys(envelope)).toEqual(envelopeKeys(golden));
  });
});
