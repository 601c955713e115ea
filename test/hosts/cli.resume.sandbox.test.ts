import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { ralph, spawnRalph, waitUntil } from '../fixtures/cli-agents/harness.js';
import { tempFolder } from '../support/git-repo.js';
import { cleanEnv } from '../support/processes.js';

const AGENT = quote([
  process.execPath,
  fileURLToPath(new URL('../fixtures/cli-agents/sandbox-probe-agent.mjs', import.meta.url)),
]);

interface Probe {
  seen: Record<string, boolean>;
  secret: string | null;
}

/**
 * A workspace whose probe agent holds its first round, a home with a planted key, and the environment (that home,
 * a temp folder of its own, a secret) every ralph of the test runs with. The run is recorded in the workspace, as a
 * user's `--record run.jsonl` would be: only the sandbox keeps it out of the agent's sight.
 */
function scene() {
  const workspace = tempFolder('ralph-resume-sandbox-');
  const home = tempFolder('ralph-resume-home-');
  mkdirSync(join(home, '.ssh'));
  const key = join(home, '.ssh', 'id_ed25519');
  writeFileSync(key, 'planted secret\n');
  const recording = join(workspace, 'run.jsonl');
  const kept = `${recording}.1`;
  writeFileSync(join(workspace, 'probe-paths.json'), JSON.stringify([key, recording, kept]));
  writeFileSync(join(workspace, 'hold-first'), '');
  const env = cleanEnv({ HOME: home, TMPDIR: tempFolder('ralph-resume-tmp-'), PROBE_SECRET: 's3cret' });
  const probe = (name: string): Probe =>
    JSON.parse(readFileSync(join(workspace, `probe-${name}.json`), 'utf8'));
  return { workspace, key, recording, kept, env, probe };
}

/** `ralph run` of the probe agent, recorded, killed with SIGKILL while its round 1 holds. */
async function runKilledInRound1(s: ReturnType<typeof scene>, extra: string[]) {
  const host = spawnRalph(
    ['run', 'Probe the sandbox', '--agent-command', AGENT, '--record', s.recording, ...extra],
    { cwd: s.workspace, env: s.env },
  );
  await waitUntil(() => existsSync(join(s.workspace, 'held')), 'round 1 to hold');
  await waitUntil(
    () => readFileSync(s.recording, 'utf8').includes('"agentsStarted":1'),
    'round 1 recorded as started',
  );
  host.child.kill('SIGKILL');
  await host.finished;
}

/** `ralph resume` of the scene's recording with `args`, in its workspace; `env` in place of the scene's. */
const resume = (s: ReturnType<typeof scene>, args: string[], env = s.env) =>
  ralph(['resume', s.recording, ...args], { cwd: s.workspace, env });

const nothingSeen = (s: ReturnType<typeof scene>) => ({
  [s.key]: false,
  [s.recording]: false,
  [s.kept]: false,
});

describe('ralph resume --sandbox', () => {
  it('a run recorded with --sandbox resumes in the sandbox: no key, no recording (kept or new), its own variables', async () => {
    const s = scene();
    await runKilledInRound1(s, ['--sandbox', '--sandbox-network', 'none', '--sandbox-env', 'PROBE_SECRET']);
    expect(s.probe('first').seen).toEqual({ [s.key]: false, [s.recording]: false, [s.kept]: false });

    const resumed = await resume(s, ['--trust-recording', '--json']);

    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).result.status).toBe('complete');
    expect(existsSync(s.kept)).toBe(true);
    expect(s.probe('1')).toEqual({ seen: nothingSeen(s), secret: 's3cret' });
  }, 60_000);

  it('--sandbox adds the sandbox to a run recorded without it', async () => {
    const s = scene();
    await runKilledInRound1(s, []);
    expect(s.probe('first')).toEqual({
      seen: { [s.key]: true, [s.recording]: true, [s.kept]: false },
      secret: 's3cret',
    });

    const resumed = await resume(s, ['--trust-recording', '--sandbox', '--json']);

    expect(resumed.code, resumed.stderr).toBe(0);
    expect(s.probe('1')).toEqual({ seen: nothingSeen(s), secret: null });
  }, 60_000);

  it('without --trust-recording the recorded sandbox stays, but its --sandbox-env is not taken', async () => {
    const s = scene();
    await runKilledInRound1(s, ['--sandbox', '--sandbox-env', 'PROBE_SECRET']);
    expect(s.probe('first').secret).toBe('s3cret');

    const resumed = await resume(s, ['--agent-command', AGENT, '--json']);

    expect(resumed.code, resumed.stderr).toBe(0);
    expect(s.probe('1')).toEqual({ seen: nothingSeen(s), secret: null });
  }, 60_000);

  it('is refused where bubblewrap cannot run (exit 2), starting nothing and leaving the recording where it was', async () => {
    const s = scene();
    await runKilledInRound1(s, []);
    const env = { ...s.env, RALPH_BWRAP: '/nonexistent/bwrap' };

    const resumed = await resume(s, ['--trust-recording', '--sandbox'], env);

    expect(resumed.code, resumed.stderr).toBe(2);
    expect(resumed.stderr).toContain('bubblewrap (/nonexistent/bwrap) was not found');
    expect(existsSync(join(s.workspace, 'probe-1.json'))).toBe(false);
    expect(existsSync(s.kept)).toBe(false);
    expect(readFileSync(s.recording, 'utf8')).toContain('"agentsStarted":1');
  }, 60_000);
});
