import { execFileSync } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { quote } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../fixtures/cli-agents/harness.js';
import { agentCommand, cleanEnv } from '../support/processes.js';
import {
  NO_SANDBOX_PLATFORM,
  processesHolding,
  ralphKnowingItsPid,
  SCRATCH_OUTSIDE_TMP,
  tempDir,
} from '../support/sandbox.js';

/** What the hostile agent wrote to hostile-result.json: whether its attack worked, and what it got or hit. */
interface AttackResult {
  attack: string;
  ok: boolean;
  detail?: string;
  error?: string;
}

const KEY =
  '-----BEGIN OPENSSH PRIVATE KEY-----\nplanted by the hostile test\n-----END OPENSSH PRIVATE KEY-----\n';

/** One test's world: a home with a planted key and a state folder, the run's workspace and another run's. */
function scene() {
  const home = tempDir('home-', SCRATCH_OUTSIDE_TMP);
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'id_ed25519'), KEY, { mode: 0o600 });
  mkdirSync(join(home, '.ralph'));
  return {
    home,
    workspace: tempDir('workspace-', SCRATCH_OUTSIDE_TMP),
    otherWorkspace: tempDir('other-workspace-', SCRATCH_OUTSIDE_TMP),
    secret: `s3cret-${process.pid}-${Date.now()}`,
  };
}

type Scene = ReturnType<typeof scene>;

/** How a run is boxed: not at all, in the default sandbox, or in one without the network. */
type Boxing = 'unsandboxed' | 'sandboxed' | 'sandboxed without network';

/**
 * Runs `ralph run` for the hostile agent doing `attack` (one round unless said), with the secret in ralph's
 * environment and HOSTILE_RALPH_PID passed into the sandbox (as a user could): the agent knows ralph's pid, the
 * sandbox must still keep it away.
 */
function runHostile(world: Scene, attack: string[], boxing: Boxing, maxRounds = 1, extra: string[] = []) {
  const sandbox =
    boxing === 'unsandboxed'
      ? []
      : [
          '--sandbox',
          '--sandbox-env',
          'HOSTILE_RALPH_PID',
          ...(boxing === 'sandboxed' ? [] : ['--sandbox-network', 'none']),
        ];
  return ralphKnowingItsPid(
    [
      'run',
      'Escape your workspace.',
      '--agent-command',
      quote(agentCommand('hostile.mjs', ...attack)),
      '--cwd',
      world.workspace,
      '--max-rounds',
      String(maxRounds),
      ...sandbox,
      ...extra,
    ],
    { cwd: world.workspace, env: cleanEnv({ HOME: world.home, RALPH_TEST_SECRET: world.secret }) },
  );
}

/** Runs the attack (runHostile), which must end its run complete: its outcome is in the result it leaves. */
async function attempt(world: Scene, attack: string[], boxing: Boxing, maxRounds = 1, extra: string[] = []) {
  const out = await runHostile(world, attack, boxing, maxRounds, extra);
  expect(out.code, out.stderr).toBe(0);
  const resultFile = join(world.workspace, 'hostile-result.json');
  const result = JSON.parse(readFileSync(resultFile, 'utf8')) as AttackResult;
  rmSync(resultFile);
  return { ...out, result };
}

/** Whether this user can write `dir` at all: without it, an unsandboxed write there proves nothing either way. */
function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(NO_SANDBOX_PLATFORM !== undefined)('a hostile agent in `ralph run --sandbox`', () => {
  it('cannot read a planted ~/.ssh/id_ed25519 (it can without the sandbox)', async () => {
    const world = scene();

    const boxed = await attempt(world, ['read-ssh-key'], 'sandboxed');
    const free = await attempt(world, ['read-ssh-key'], 'unsandboxed');

    expect(boxed.result.ok).toBe(false);
    expect(boxed.result.error).toContain('ENOENT');
    expect(JSON.stringify(boxed)).not.toContain('planted by the hostile test');
    expect(free.result).toMatchObject({ ok: true, detail: KEY });
  });

  it("cannot read ralph's /proc/<pid>/environ (it can without the sandbox)", async () => {
    const world = scene();

    const boxed = await attempt(world, ['read-ralph-environ'], 'sandboxed');
    const free = await attempt(world, ['read-ralph-environ'], 'unsandboxed');

    expect(boxed.result.ok).toBe(false);
    // It aimed at ralph's real pid, which its PID namespace does not hold.
    expect(boxed.result.error).toContain(`/proc/${boxed.pid}/environ`);
    expect(free.result.ok).toBe(true);
    expect(free.result.detail?.split('\n')).toContain(`RALPH_TEST_SECRET=${world.secret}`);
  });

  it("finds a secret of ralph's environment neither in its own nor in any process's (it does without)", async () => {
    const world = scene();

    const boxed = await attempt(world, ['find-secret'], 'sandboxed');
    const free = await attempt(world, ['find-secret'], 'unsandboxed');

    expect(boxed.result).toMatchObject({ ok: false, error: 'RALPH_TEST_SECRET is nowhere to be seen' });
    expect(free.result.ok).toBe(true);
    expect(free.result.detail?.split('\n')).toEqual(
      expect.arrayContaining([
        `own environment: ${world.secret}`,
        `/proc/${free.pid}/environ: ${world.secret}`,
      ]),
    );
  });

  /**
   * Places outside the workspace, and what the agent sees when it writes there from the sandbox: its home (and
   * ralph's state folder in it) is a private tmpfs, where the write lands and vanishes with the round; the rest of
   * the file system is read-only. Either way the host's file must never appear.
   */
  const outside: [string, (world: Scene) => string, 'private' | 'EROFS'][] = [
    ['the home', (world) => join(world.home, 'hostile.txt'), 'private'],
    ["ralph's state folder (~/.ralph)", (world) => join(world.home, '.ralph', 'hostile.txt'), 'private'],
    ["another run's workspace", (world) => join(world.otherWorkspace, 'hostile.txt'), 'EROFS'],
    ['/etc', () => `/etc/ralph-hostile-${process.pid}-${Date.now()}`, 'EROFS'],
  ];

  it.each(outside)('cannot write in %s (it can without the sandbox)', async (_, where, inside) => {
    const world = scene();
    const target = where(world);
    try {
      const boxed = await attempt(world, ['write', target], 'sandboxed');
      expect(existsSync(target), `${target} was written from the sandbox`).toBe(false);
      if (inside === 'EROFS')
        expect(boxed.result).toMatchObject({ ok: false, error: expect.stringMatching(/^EROFS /) });
      else expect(boxed.result).toMatchObject({ ok: true, detail: `wrote ${target}` });

      const free = await attempt(world, ['write', target], 'unsandboxed');
      if (writable(dirname(target))) {
        expect(free.result).toMatchObject({ ok: true, detail: `wrote ${target}` });
        expect(readFileSync(target, 'utf8')).toBe('written by a hostile agent\n');
      } else {
        // Not this user's to write (/etc for anyone but root): the sandbox cannot be what stopped it.
        expect(free.result.ok).toBe(false);
      }
    } finally {
      rmSync(target, { force: true });
    }
  });

  it("cannot signal ralph's process (it can without the sandbox)", async () => {
    const world = scene();

    const boxed = await attempt(world, ['signal-ralph'], 'sandboxed');
    const free = await attempt(world, ['signal-ralph'], 'unsandboxed');

    expect(boxed.result).toMatchObject({ ok: false, error: 'ESRCH kill ESRCH' });
    expect(free.result).toMatchObject({ ok: true, detail: `kill(${free.pid}, 0) succeeded` });
  });

  it('cannot reach a loopback port with --sandbox-network none (it can without the sandbox)', async () => {
    const world = scene();
    let connections = 0;
    const server = createServer((socket) => {
      connections += 1;
      socket.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((server.address() as { port: number }).port);

      const boxed = await attempt(world, ['connect', port], 'sandboxed without network');
      expect(boxed.result.ok).toBe(false);
      expect(connections).toBe(0);

      const free = await attempt(world, ['connect', port], 'unsandboxed');
      expect(free.result).toMatchObject({ ok: true, detail: `connected to 127.0.0.1:${port}` });
      await waitUntil(() => connections === 1, 'the unsandboxed connection to arrive');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  /** A folder for a daemon's socket in /run, where daemons keep theirs, when this user may make one there. */
  const runDir = [`/run/user/${process.getuid?.()}`, '/run'].find((dir) => writable(dir));

  it.skipIf(runDir === undefined)(
    "cannot connect to a daemon's Unix socket in /run, even with --sandbox-network none (it can without the sandbox)",
    async () => {
      const world = scene();
      const dir = mkdtempSync(join(runDir as string, 'ralph-hostile-'));
      const socketPath = join(dir, 'daemon.sock');
      let connections = 0;
      const server = createServer((socket) => {
        connections += 1;
        socket.resume();
      });
      await new Promise<void>((resolve) => server.listen(socketPath, resolve));
      try {
        const boxed = await attempt(world, ['connect-unix', socketPath], 'sandboxed without network');
        expect(boxed.result).toMatchObject({ ok: false, error: expect.stringMatching(/^ENOENT /) });
        expect(connections).toBe(0);

        const free = await attempt(world, ['connect-unix', socketPath], 'unsandboxed');
        expect(free.result).toMatchObject({ ok: true, detail: `connected to ${socketPath}` });
        await waitUntil(() => connections === 1, 'the unsandboxed connection to arrive');
      } finally {
        await new Promise((resolve) => server.close(resolve));
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('cannot have ralph read for it, through a link left as its report file, a file it cannot see', async () => {
    const world = scene();
    // A file of the user's that reads as a report: ralph would hand its summary to the next round.
    const planted = join(world.home, 'report-shaped.json');
    writeFileSync(
      planted,
      JSON.stringify({
        status: 'continue',
        summary: `the secret is ${world.secret}`,
        evidence: [],
        nextSteps: ['go on'],
        blocker: null,
      }),
    );

    const boxed = await runHostile(world, ['report-link', planted], 'sandboxed', 2);

    expect(boxed.code).toBe(1);
    expect(boxed.stderr).toContain('report.json is a symbolic link, which ralph does not follow');
    expect(`${boxed.stdout}${boxed.stderr}`).not.toContain(world.secret);
    // Without the sandbox the agent needs no link: it reads the file itself (as the ssh key above).
  });

  it('finds nothing an earlier round left in its round folder, which is not reused (it is without the sandbox)', async () => {
    const world = scene();

    const boxed = await attempt(world, ['round-folder-note'], 'sandboxed', 2);
    const free = await attempt(world, ['round-folder-note'], 'unsandboxed', 2);

    expect(boxed.result).toMatchObject({ ok: false, error: expect.stringMatching(/^ENOENT /) });
    expect(free.result).toMatchObject({ ok: true, detail: 'hello from round 1\n' });
  });

  describe('leaving a process behind', () => {
    let token = '';
    afterEach(() => {
      for (const pid of processesHolding(token)) process.kill(pid, 'SIGKILL');
    });

    it('its setsid sleeper is gone once the round is over (it outlives ralph without the sandbox)', async () => {
      const world = scene();
      token = `ralph-hostile-sleeper-${process.pid}-${Date.now()}`;

      const boxed = await attempt(world, ['leave-process', token], 'sandboxed');
      // The sleeper ran (it wrote its pid), and the namespace took it down with the round.
      expect(boxed.result.ok, boxed.result.error).toBe(true);
      expect(existsSync(join(world.workspace, 'sleeper.pid'))).toBe(true);
      await waitUntil(() => processesHolding(token).length === 0, 'the sandboxed sleeper to be gone');

      const free = await attempt(world, ['leave-process', token], 'unsandboxed');
      expect(free.result.ok, free.result.error).toBe(true);
      // ralph has exited; the sleeper it started still runs.
      expect(processesHolding(token)).toHaveLength(1);
    });
  });
});

describe.skipIf(NO_SANDBOX_PLATFORM !== undefined)("a hostile agent and the repository's git folder", () => {
  /** A workspace that is a git repository with one commit. */
  function repoScene() {
    const world = scene();
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', world.workspace, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args]);
    git('init', '-q');
    git('commit', '-q', '--allow-empty', '-m', 'start');
    return world;
  }

  it('cannot rename .git away to put one of its own in its place (it can without the sandbox)', async () => {
    const boxedWorld = repoScene();
    const boxed = await attempt(boxedWorld, ['swap-git-folder'], 'sandboxed');
    expect(boxed.result.ok).toBe(false);
    expect(boxed.result.error).toContain('EBUSY');
    expect(existsSync(join(boxedWorld.workspace, '.git', 'HEAD'))).toBe(true);
    expect(existsSync(join(boxedWorld.workspace, '.git-moved'))).toBe(false);

    const freeWorld = repoScene();
    const free = await attempt(freeWorld, ['swap-git-folder'], 'unsandboxed');
    expect(free.result.ok).toBe(true);
    expect(existsSync(join(freeWorld.workspace, '.git-moved', 'HEAD'))).toBe(true);
  });

  it('leaves no commondir planted in .git once its round is over (it does without the sandbox)', async () => {
    const boxedWorld = repoScene();
    const boxed = await attempt(boxedWorld, ['plant-commondir'], 'sandboxed');
    // Inside, the write works; the pointer is gone before anything outside runs git again.
    expect(boxed.result.ok).toBe(true);
    expect(existsSync(join(boxedWorld.workspace, '.git', 'commondir'))).toBe(false);

    const freeWorld = repoScene();
    await attempt(freeWorld, ['plant-commondir'], 'unsandboxed');
    expect(existsSync(join(freeWorld.workspace, '.git', 'commondir'))).toBe(true);
  });
});

describe.skipIf(NO_SANDBOX_PLATFORM !== undefined)('--sandbox-hide', () => {
  it('hides a file outside the home and /tmp that the read-only file system would show', async () => {
    const world = scene();
    const secret = join(tempDir('service-', SCRATCH_OUTSIDE_TMP), 'token');
    writeFileSync(secret, 'a service token\n');

    const shown = await attempt(world, ['read', secret], 'sandboxed');
    const hidden = await attempt(world, ['read', secret], 'sandboxed', 1, ['--sandbox-hide', secret]);

    expect(shown.result).toMatchObject({ ok: true, detail: 'a service token\n' });
    // A hidden file is /dev/null's node on a mount that allows no devices: it cannot even be opened.
    expect(hidden.result).toMatchObject({ ok: false });
    expect(JSON.stringify(hidden)).not.toContain('a service token');
  });
});
