import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardQueries } from '../../src/fleet/dashboard-queries.js';
import { createPgPool } from '../../src/fleet/pg-pool.js';
import { createRalphFleet } from '../../src/fleet.js';
import { launchBrowser, NO_BROWSER, openWatchedPage } from '../support/browser.js';
import { AGENT_COMMAND, startDashboard, startWorker, stopWorker, useFleetScene } from './harness.js';

// The dashboard's list shows a fleet run's last evaluation (its envelope's result.evaluation) under its status. The
// fleet does not run evaluators yet (`ralph submit --evaluator` is another change's): a real run's stored envelope is
// given the evaluation a fleet run with an evaluator will carry.

const scene = useFleetScene();
let browser: Browser | undefined;
beforeAll(async () => {
  if (NO_BROWSER === undefined) browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

const LONG_FINDING = `the stub ${'x'.repeat(400)}`;
const FINDINGS = [LONG_FINDING, 'no test', 'half done', 'README untouched', 'lint fails', 'six', 'seven'];
const EVALUATION = {
  evaluator: 'command-evaluator',
  round: 2,
  verdict: 'reject',
  findings: FINDINGS,
  evidence: [],
  evaluatorsStarted: 2,
};

/** Sets `evaluation` in the stored envelope of run `runId`, wherever DBOS keeps its output and however it encoded it. */
async function giveEvaluation(url: string, runId: string, evaluation: unknown): Promise<void> {
  const pool = createPgPool({ connectionString: url, max: 1 });
  const set = (column: string) =>
    `(CASE WHEN ${column}::jsonb ? '__dbos_serializer'
      THEN jsonb_set(${column}::jsonb, '{json,envelope,result,evaluation}', $2::jsonb)
      ELSE jsonb_set(${column}::jsonb, '{envelope,result,evaluation}', $2::jsonb) END)::text`;
  try {
    const a = await pool.query(
      `UPDATE dbos.workflow_output SET output = ${set('output')} WHERE workflow_uuid = $1`,
      [runId, JSON.stringify(evaluation)],
    );
    const b = await pool.query(
      `UPDATE dbos.workflow_status SET output = ${set('output')} WHERE workflow_uuid = $1 AND output IS NOT NULL`,
      [runId, JSON.stringify(evaluation)],
    );
    expect((a.rowCount ?? 0) + (b.rowCount ?? 0)).toBeGreaterThan(0);
  } finally {
    await pool.end();
  }
}

describe('ralph dashboard: a run evaluated', () => {
  it('lists its last verdict under its status, the findings bounded, and none for a run without one', async () => {
    const url = scene.databaseFor('dashboard_evaluation');
    const worker = await startWorker(url, 'eval-worker', { env: { FLEET_AGENT_ROUNDS: '2' } });
    scene.processes.push(worker);
    const fleet = await createRalphFleet({ databaseUrl: url });
    scene.fleets.push(fleet);
    const agent = { agentCommand: AGENT_COMMAND };
    const evaluated = await fleet.submit({
      objective: 'Be evaluated',
      agent,
      cwd: (await scene.workspace()).dir,
    });
    const plain = await fleet.submit({ objective: 'Be plain', agent, cwd: (await scene.workspace()).dir });
    expect((await fleet.wait(evaluated, { pollMs: 200 })).state).toBe('complete');
    expect((await fleet.wait(plain, { pollMs: 200 })).state).toBe('complete');
    await stopWorker(worker);
    await giveEvaluation(url, evaluated, EVALUATION);

    const pool = createPgPool({ connectionString: url, max: 1 });
    try {
      const { runs } = await new DashboardQueries(pool).runs({ limit: 10 });
      const byId = new Map(runs.map((run) => [run.runId, run]));
      expect(byId.get(evaluated)?.evaluation).toEqual({
        evaluator: 'command-evaluator',
        round: 2,
        verdict: 'reject',
        findingCount: 7,
        findings: [LONG_FINDING.slice(0, 300), 'no test', 'half done', 'README untouched', 'lint fails'],
      });
      expect(byId.get(plain)?.evaluation).toBeNull();
    } finally {
      await pool.end();
    }

    if (browser === undefined) return;
    const { address, dashboard } = await startDashboard(scene, url);
    const { page, faults } = await openWatchedPage(browser, (target) =>
      target.startsWith(`${address.origin}/`),
    );
    await page.goto(address.toString());
    const status = page.locator(`tr[data-run="${evaluated}"] td.state`);
    await status.waitFor();
    const verdict = status.locator('.evaluation');
    expect(await verdict.textContent()).toBe('evaluator rejected round 2: 7 findings');
    expect(await verdict.getAttribute('title')).toBe(
      [
        'command-evaluator',
        LONG_FINDING.slice(0, 300),
        'no test',
        'half done',
        'README untouched',
        'lint fails',
        '… 2 more',
      ].join('\n'),
    );
    expect(await page.locator(`tr[data-run="${evaluated}"]`).getAttribute('data-state')).toBe('complete');
    expect(await page.locator(`tr[data-run="${plain}"] td.state`).textContent()).toBe('complete');
    expect(faults).toEqual({ errors: [], requests: [] });
    await page.close();
    dashboard.child.kill('SIGINT');
    expect((await dashboard.exited).code).toBe(0);
  }, 120_000);
});
