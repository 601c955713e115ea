import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const bench = fileURLToPath(new URL('../../bench/fleet.mjs', import.meta.url));

describe('bench/fleet.mjs (npm run bench:fleet)', () => {
  it('runs a small fleet on one worker to its end and prints its table, with the durable overhead a round', async () => {
    const { stdout } = await run(
      process.execPath,
      [bench, '--runs', '3', '--workers', '1', '--pairs', '1', '--no-fsync'],
      {
        maxBuffer: 1 << 20,
      },
    );
    // Every run ran its 3 rounds (the bench checks it in the database), on the one worker.
    expect(stdout).toMatch(/^\| 1 \(1 ran runs\) \| 3 × 3 \| [\d.]+ s \| [\d.]+ \| 1\.00× \|/m);
    expect(stdout).toMatch(
      /^\| overhead a round, \(fleet − in process\) \/ 3, median of 1 pairs \| -?[\d.]+ ms \|/m,
    );
    expect(stdout).toMatch(/^\| idle queue: submit → first round, median \/ p99 \| \d+ ms \/ \d+ ms \|/m);
  }, 60_000);
});
