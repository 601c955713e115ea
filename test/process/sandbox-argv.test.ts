import { existsSync, lstatSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isWithin, SANDBOX_USER, type SandboxSpec, sandboxArgv } from '../../src/process/sandbox-argv.js';
import { startInGroup } from '../../src/process/start-in-group.js';
import { cleanEnv, until } from '../support/processes.js';
import { NO_SANDBOX_PLATFORM, processesHolding, tempDir } from '../support/sandbox.js';

/** A home with a state folder holding a worker's worktree, an agent's config folder and file, and a workspace. */
function layout() {
  const root = tempDir('ralph-argv-');
  const home = join(root, 'home');
  const paths = {
    root,
    home,
    state: join(home, '.ralph'),
    worktree: join(home, '.ralph', 'workers', 'w1', 'worktrees', 't1'),
    claudeDir: join(home, '.claude'),
    claudeFile: join(home, '.claude.json'),
    workspace: join(root, 'workspace'),
    roundDir: join(root, 'round'),
    recording: join(root, 'run.jsonl'),
  };
  for (const dir of [paths.worktree, paths.claudeDir, paths.workspace, paths.roundDir])
    mkdirSync(dir, { recursive: true });
  writeFileSync(paths.claudeFile, '{}');
  writeFileSync(paths.recording, '');
  writeFileSync(join(paths.roundDir, 'owner.json'), '{}');
  return paths;
}

const specOf = (paths: ReturnType<typeof layout>, extra: Partial<SandboxSpec> = {}): SandboxSpec => ({
  network: 'keep',
  home: paths.home,
  writable: [paths.workspace, paths.roundDir],
  readOnly: [join(paths.roundDir, 'owner.json')],
  homeBinds: [paths.claudeDir, paths.claudeFile],
  hide: [],
  cwd: paths.workspace,
  ...extra,
});

/** The folders every sandbox gets a private tmpfs at, where they are folders. */
const PRIVATE = ['/var/tmp', '/run', '/var/run'];
const RESOLV_CONF = existsSync('/etc/resolv.conf') ? realpathSync('/etc/resolv.conf') : undefined;
const isFolder = (path: string) => existsSync(path) && lstatSync(path).isDirectory();

/** The mounts of a sandbox's argv after the fixed ones, each as its option and paths. */
function mountsOf(argv: string[]): string[][] {
  const start = argv.indexOf('/tmp') + 1;
  const end = argv.indexOf('--chdir');
  const mounts: string[][] = [];
  for (let i = start; i < end; ) {
    const option = argv[i] as string;
    const width = option === '--tmpfs' ? 2 : 3;
    mounts.push(argv.slice(i, i + width));
    i += width;
  }
  // /var/tmp and /run get a private tmpfs too where they exist: not the spec's mounts.
  return mounts.filter((mount) => !PRIVATE.includes(mount[1] as string) && mount[1] !== RESOLV_CONF);
}

describe('sandboxArgv', () => {
  it('runs the command under bubblewrap: all namespaces, the root read-only, a fresh /dev, /proc and /tmp', () => {
    const paths = layout();
    const argv = sandboxArgv(['node', 'agent.mjs', '--flag'], specOf(paths));

    expect(argv.slice(0, 13 + SANDBOX_USER.length)).toEqual([
      'bwrap',
      '--unshare-all',
      '--share-net',
      '--as-pid-1',
      ...SANDBOX_USER,
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
    ]);
    const command = argv.slice(argv.indexOf('--chdir'));
    expect(command.slice(0, 5)).toEqual(['--chdir', paths.workspace, '--', '/bin/sh', '-c']);
    expect(command.slice(6)).toEqual(['ralph-sandbox', 'node', 'agent.mjs', '--flag']);
    expect(argv.includes('/var/tmp')).toBe(existsSync('/var/tmp'));
  });

  it('gives it a private /run (and /var/run where it is a folder): the daemons’ sockets are not there', () => {
    const argv = sandboxArgv(['x'], specOf(layout(), { network: 'none' }));
    for (const run of ['/run', '/var/run']) {
      const at = argv.indexOf(run);
      expect(at !== -1 && argv[at - 1] === '--tmpfs', `--tmpfs ${run}`).toBe(isFolder(run));
    }
  });

  it.skipIf(RESOLV_CONF === undefined || !RESOLV_CONF.startsWith('/run/'))(
    'binds back a resolv.conf that lives in /run when it keeps the network, so that names resolve',
    () => {
      const paths = layout();
      const bound = ['--ro-bind', RESOLV_CONF, RESOLV_CONF].join(' ');
      expect(sandboxArgv(['x'], specOf(paths)).join(' ')).toContain(bound);
      expect(sandboxArgv(['x'], specOf(paths, { network: 'none' })).join(' ')).not.toContain(bound);
    },
  );

  it('runs the bubblewrap program the spec names', () => {
    expect(sandboxArgv(['x'], specOf(layout(), { bwrap: '/opt/bwrap' }))[0]).toBe('/opt/bwrap');
  });

  it('keeps the network for `keep` and gives `none` a network namespace of its own', () => {
    const paths = layout();
    expect(sandboxArgv(['x'], specOf(paths))).toContain('--share-net');
    const none = sandboxArgv(['x'], specOf(paths, { network: 'none' }));
    expect(none).not.toContain('--share-net');
    expect(none).toContain('--unshare-all');
  });

  it('mounts parents before children: the private home, then what is bound inside it', () => {
    const paths = layout();
    expect(mountsOf(sandboxArgv(['x'], specOf(paths)))).toEqual([
      ['--tmpfs', paths.home],
      ['--bind', paths.workspace, paths.workspace],
      ['--bind', paths.roundDir, paths.roundDir],
      ['--bind', paths.claudeDir, paths.claudeDir],
      ['--bind', paths.claudeFile, paths.claudeFile],
      ['--ro-bind', join(paths.roundDir, 'owner.json'), join(paths.roundDir, 'owner.json')],
    ]);
  });

  it("hides a state folder, yet binds a worktree inside it over the hiding (a worker's task)", () => {
    const paths = layout();
    const argv = sandboxArgv(
      ['x'],
      specOf(paths, { writable: [paths.worktree], readOnly: [], homeBinds: [], hide: [paths.state] }),
    );
    expect(mountsOf(argv)).toEqual([
      ['--tmpfs', paths.home],
      ['--tmpfs', paths.state],
      ['--bind', paths.worktree, paths.worktree],
    ]);
  });

  it('hides a folder behind an empty tmpfs and a file behind /dev/null, and skips what does not exist', () => {
    const paths = layout();
    const argv = sandboxArgv(
      ['x'],
      specOf(paths, {
        writable: [],
        readOnly: [join(paths.root, 'no-such-file')],
        homeBinds: [join(paths.home, '.codex')],
        hide: [paths.workspace, paths.recording, join(paths.root, 'missing')],
      }),
    );
    expect(mountsOf(argv)).toEqual([
      ['--tmpfs', paths.home],
      ['--tmpfs', paths.workspace],
      ['--ro-bind', '/dev/null', paths.recording],
    ]);
  });

  it('at one depth binds writable, then read-only, then hides, whatever order the spec lists them in', () => {
    const paths = layout();
    const owner = join(paths.roundDir, 'owner.json');
    const argv = sandboxArgv(
      ['x'],
      specOf(paths, { writable: [owner], readOnly: [owner], homeBinds: [], hide: [owner] }),
    );
    expect(mountsOf(argv)).toEqual([
      ['--tmpfs', paths.home],
      ['--bind', owner, owner],
      ['--ro-bind', owner, owner],
      ['--ro-bind', '/dev/null', owner],
    ]);
  });

  it('refuses to make writable a path that holds the home, the home itself included', () => {
    const paths = layout();
    for (const holder of ['/', paths.root, paths.home, `${paths.home}/`]) {
      expect(() => sandboxArgv(['x'], specOf(paths, { writable: [holder] }))).toThrow(
        `the sandbox cannot make ${holder} writable: it holds the home folder ${paths.home}`,
      );
    }
    // A sibling whose name starts like the home's does not hold it.
    const sibling = `${paths.home}-other`;
    expect(() => sandboxArgv(['x'], specOf(paths, { writable: [sibling] }))).not.toThrow();
  });

  it('refuses a writable folder holding a home whose name starts with two dots', () => {
    const paths = layout();
    const home = join(paths.root, '..home');
    mkdirSync(home);
    expect(() => sandboxArgv(['x'], specOf(paths, { home, writable: [paths.root] }))).toThrow(
      `the sandbox cannot make ${paths.root} writable: it holds the home folder ${home}`,
    );
  });

  it('isWithin: a path is within itself and its ancestors, not its siblings', () => {
    expect(isWithin('/a/b/c', '/a/b')).toBe(true);
    expect(isWithin('/a/b', '/a/b')).toBe(true);
    expect(isWithin('/a/bc', '/a/b')).toBe(false);
    expect(isWithin('/a', '/a/b')).toBe(false);
    expect(isWithin('/a/..b', '/a')).toBe(true);
  });
});

describe.skipIf(NO_SANDBOX_PLATFORM !== undefined)("the sandbox's PID 1, run by startInGroup", () => {
  const start = (program: string, options: { input?: string; graceMs?: number } = {}) => {
    const paths = layout();
    const child = startInGroup([process.execPath, '-e', program], {
      cwd: paths.workspace,
      env: cleanEnv(),
      maxOutputBytes: 4096,
      graceMs: options.graceMs ?? 200,
      ...(options.input === undefined ? {} : { input: options.input }),
      sandbox: {
        network: 'none',
        home: paths.home,
        writable: [paths.workspace],
        readOnly: [],
        homeBinds: [],
        hide: [],
      },
    });
    return { paths, child };
  };

  it("hands the command its stdin and exits with the command's status", async () => {
    const { child } = start(
      "let t = ''; process.stdin.on('data', (c) => (t += c)).on('end', () => { console.log(t.toUpperCase()); process.exit(5); })",
      { input: 'the prompt' },
    );
    const exit = await (await child).exited;
    expect(exit).toMatchObject({ code: 5, signal: null, groupGone: true });
    expect(exit.stdout.text()).toBe('THE PROMPT\n');
  });

  it('reports a command killed by a signal as exit 128 + its number', async () => {
    const exit = await (await start("process.kill(process.pid, 'SIGKILL')").child).exited;
    expect(exit).toMatchObject({ code: 128 + 9, signal: null, groupGone: true });
  });

  it("lets a stop's SIGTERM reach the command, which gets its grace", async () => {
    const { paths, child } = start(
      "process.on('SIGTERM', () => setTimeout(() => { console.log('cleaned up'); process.exit(0); }, 100)); require('fs').writeFileSync('ready', ''); setInterval(() => {}, 1 << 30)",
      { graceMs: 10_000 },
    );
    const running = await child;
    await until(() => existsSync(join(paths.workspace, 'ready')), 'the SIGTERM handler to be in place');
    running.stop();
    const exit = await running.exited;
    expect(exit.groupGone).toBe(true);
    expect(exit.stdout.text()).toBe('cleaned up\n');
  });

  it('takes down what the command left running in the namespace (a setsid daemon too) when it exits', async () => {
    const token = `ralph-sandbox-daemon-${process.pid}-${Date.now()}`;
    const daemon = "require('fs').writeFileSync('daemon', ''); setInterval(() => {}, 1 << 30)";
    // The command starts a daemon in a session of its own and exits once the daemon runs.
    const { paths, child } = start(
      `require('child_process').spawn(process.execPath, ['-e', ${JSON.stringify(daemon)}, ${JSON.stringify(token)}], { detached: true, stdio: 'ignore' }).unref();` +
        "const t = setInterval(() => { if (require('fs').existsSync('daemon')) { clearInterval(t); process.exit(0); } }, 10);",
    );
    const exit = await (await child).exited;
    expect(exit).toMatchObject({ code: 0, groupGone: true });
    expect(existsSync(join(paths.workspace, 'daemon'))).toBe(true);
    await until(() => processesHolding(token).length === 0, 'the daemon to be gone');
  });
});

describe('who the command is inside the sandbox', () => {
  it('has no capability, and started by root is an ordinary user (so it cannot unmount what hides the home)', () => {
    expect(SANDBOX_USER.slice(0, 2)).toEqual(['--cap-drop', 'ALL']);
    expect(SANDBOX_USER.includes('--uid')).toBe(process.getuid?.() === 0);
  });
});
