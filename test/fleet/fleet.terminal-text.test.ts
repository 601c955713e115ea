import { describe, expect, it } from 'vitest';
import { LEASE_TABLE } from '../../src/fleet/constants.js';
import { createPgPool } from '../../src/fleet/pg-pool.js';
import { createRalphFleet } from '../../src/fleet.js';
import { controlsIn } from '../support/terminal.js';
import { ralph, useFleetScene } from './harness.js';

// Whoever can write to the fleet's database writes what `ralph runs` prints: a worker id or host name holding escape
// sequences must reach the terminal as text (no cleared screen, no retitled window); --json keeps the data.

const scene = useFleetScene();

describe("ralph runs prints the database's values without control characters", () => {
  it('a worker id and host name full of escape sequences show as text; --json keeps them as they are', async () => {
    const url = scene.databaseFor('escapes');
    // Set up as a worker or submit would (the read-only `ralph runs` creates nothing).
    await (await createRalphFleet({ databaseUrl: url })).close();
    const workerId = 'worker\x1b[2J-1';
    const hostname = 'host\x1b]0;owned\x07\x9b2J';
    const pool = createPgPool({ connectionString: url, max: 1 });
    try {
      await pool.query(
        `INSERT INTO ${LEASE_TABLE} VALUES ($1, $2, 'boot', 'pid:[1]', 42, '1', 60000, now() + interval '1 minute')`,
        [workerId, hostname],
      );
    } finally {
      await pool.end();
    }

    const listed = await ralph(['runs', '--database-url', url]);
    const json = await ralph(['runs', '--json', '--database-url', url]);

    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('worker worker[2J-1: live (pid 42 on host]0;owned2J)');
    expect(controlsIn(listed.stdout)).toEqual([]);
    expect(controlsIn(json.stdout)).toEqual([]);
    expect(JSON.parse(json.stdout).workers).toMatchObject([{ workerId, hostname }]);
  });
});
