import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  combinedTail,
  parseVerifyCommand,
  runVerifyCommand,
  type VerifyCommandRun,
} from '../../src/actors/verify-command.js';
import { RalphError } from '../../src/contract/errors.js';
import type { VerifySpec } from '../../src/contract/types.js';
import { liveMembersOf } from '../../src/process/group-signals.js';
import { agentCommand, cleanEnv, isRunning, until, useScratch } from '../support/processes.js';

const s = useScratch();

const node = (program: string): string[] => [process.execPath, '-e', program];

/** A run of the verify command `argv` in the scratch workspace; `extra` overrides its spec's limits, grace or env. */
const request = (
  argv: readonly string[],
  extra: Partial<Pick<VerifySpec, 'timeoutMs' | 'maxOutputChars'> & Omit<VerifyCommandRun, 'verify'>> = {},
): VerifyCommandRun => {
  const { timeoutMs = 60_000, maxOutputChars = 1_000, ...rest } = extra;
  return {
    verify: { argv: [...argv], timeoutMs, maxOutputChars },
    cwd: s.workspace,
    terminationGraceMs: 200,
    env: cleanEnv({ FIXTURE_PID_LOG: s.pidLog }),
    ...rest,
  };
};

const live = () => ({ signal: new AbortController().signal });

/** Fails unless the group led by the first logged pid has no live member, nor any logged process. */
async function assertGroupGone(): Promise<void> {
  const [leader] = await s.pids();
  expect(leader).toBeDefined();
  expect(await liveMembersOf(leader as number)).toEqual([]);
  expect((await s.pids()).filter(isRunning)).toEqual([]);
}

describe('the verify command runs from argv in the workspace and says how it ended', () => {
  it('a command that passes exits 0, run in the workspace with stdin closed and one Ralph level deeper', async () => {
    const outcome = await runVerifyCommand(
      request(
        node(
          "let n = 0; process.stdin.on('data', () => n++).on('end', () => { console.log(process.cwd(), process.env.RALPH_DEPTH, n); });",
        ),
      ),
      live(),
    );
    expect(outcome).toMatchObject({ exitCode: 0, signal: null, timedOut: false });
    expect(outcome.outputTail).toBe(`${s.workspace} 1 0\n`);
    expect(Number.isInteger(outcome.durationMs) && outcome.durationMs >= 0).toBe(true);
  });

  it('a failing command gives its exit code and the end of both output streams', async () => {
    const outcome = await runVerifyCommand(
      request(
        node("console.log('2 tests ran'); console.error('1 test failed: expected 3'); process.exit(3)"),
      ),
      live(),
    );
    expect(outcome).toMatchObject({ exitCode: 3, signal: null, timedOut: false });
    expect(outcome.outputTail).toBe('[stdout]\n2 tests ran\n\n[stderr]\n1 test failed: expected 3\n');
  });

  it('output over the cap keeps its end', async () => {
    const outcome = await runVerifyCommand(
      request(node("for (let i = 0; i < 5000; i++) console.log('line ' + i); process.stdout.write('LAST')"), {
        maxOutputChars: 100,
      }),
      live(),
    );
    expect(outcome.exitCode).toBe(0);
    expect(outcome.outputTail).toHaveLength(100);
    expect(outcome.outputTail.endsWith('line 4999\nLAST')).toBe(true);
  });

  it('runs the program itself, never a shell: shell syntax in an argument is just text', async () => {
    const outcome = await runVerifyCommand(request(['echo', '$HOME && `ls` *']), live());
    expect(outcome.outputTail).toBe('$HOME && `ls` *\n');
  });
});

describe('a verify command that runs too long is stopped with its whole group', () => {
  it('a command hanging with a grandchild is timed out, and nothing of its group is left', async () => {
    const outcome = await runVerifyCommand(
      request(agentCommand('spawn-grandchild.mjs', 'hang'), { timeoutMs: 300 }),
      live(),
    );
    expect(outcome).toMatchObject({ exitCode: null, signal: 'SIGTERM', timedOut: true });
    expect(outcome.outputTail).toContain('hanging with a grandchild');
    expect(outcome.durationMs).toBeGreaterThanOrEqual(300);
    expect(await s.pids()).toHaveLength(2);
    await assertGroupGone();
  });

  it('a command that ignores SIGTERM is SIGKILLed after the grace', async () => {
    // The timeout is the trigger here, so the command must ignore SIGTERM from its first moment: a shell that sets
    // the disposition and execs `sleep` (which inherits it) is ready within milliseconds, where a Node fixture on a
    // loaded machine was sometimes still starting when the timeout fired, and died of the SIGTERM.
    const outcome = await runVerifyCommand(
      request(['sh', '-c', 'trap "" TERM; echo $$ >> "$FIXTURE_PID_LOG"; exec sleep 600'], {
        timeoutMs: 1_000,
      }),
      live(),
    );
    expect(outcome).toMatchObject({ exitCode: null, signal: 'SIGKILL', timedOut: true });
    await assertGroupGone();
  });

  it('a command that exits leaving a grandchild in its group settles only once that grandchild is gone', async () => {
    // The grandchild stays in the group without the command's pipes, so only the group watch can wait for it.
    const leaveGrandchild = node(
      "const { appendFileSync } = require('node:fs'); const g = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' }); appendFileSync(process.env.FIXTURE_PID_LOG, process.pid + '\\n' + g.pid + '\\n'); g.unref();",
    );
    const outcome = await runVerifyCommand(request(leaveGrandchild), live());
    expect(await s.pids()).toHaveLength(2);
    expect(outcome).toMatchObject({ exitCode: 0, timedOut: false });
    await assertGroupGone();
  });
});

describe('a cancelled verify command is stopped, then rejects with the reason', () => {
  it('an abort mid-run stops the group and leaves nothing', async () => {
    const controller = new AbortController();
    const reason = new Error('the run was cancelled');
    const running = runVerifyCommand(request(agentCommand('spawn-grandchild.mjs', 'hang')), {
      signal: controller.signal,
    });
    await until(async () => (await s.pids()).length === 2, 'the grandchild to start');
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    await assertGroupGone();
  });

  it('an abort before the start starts nothing', async () => {
    const controller = new AbortController();
    controller.abort(new Error('already cancelled'));
    await expect(
      runVerifyCommand(request(agentCommand('hang.mjs')), { signal: controller.signal }),
    ).rejects.toThrow('already cancelled');
    expect(await s.pids()).toEqual([]);
  });
});

describe('a verify command that cannot start rejects, naming the command and the reason', () => {
  it('a program not on PATH', async () => {
    await expect(runVerifyCommand(request(['ralph-no-such-verify']), live())).rejects.toThrow(
      'the verify command "ralph-no-such-verify" could not start: it was not found (spawn ralph-no-such-verify ENOENT)',
    );
  });

  it('a file that is not executable', async () => {
    const script = join(s.workspace, 'check.sh');
    await writeFile(script, '#!/bin/sh\nexit 0\n');
    await chmod(script, 0o644);
    await expect(runVerifyCommand(request([script]), live())).rejects.toThrow(
      `the verify command ${JSON.stringify(script)} could not start: it is not executable`,
    );
  });

  it('a workspace that does not exist', async () => {
    const missing = join(s.workspace, 'gone');
    await expect(runVerifyCommand(request(['true'], { cwd: missing }), live())).rejects.toThrow(
      `the verify command "true" could not start: the workspace ${missing} is not a folder`,
    );
  });
});

describe('the output tail holds both streams within the cap', () => {
  it('one stream alone is its own end, unlabelled', () => {
    expect(combinedTail('abcdef', '', 4)).toBe('cdef');
    expect(combinedTail('', 'abcdef', 4)).toBe('cdef');
  });

  it('both streams get half the room each, and a short one leaves the rest to the other', () => {
    const out = 'o'.repeat(500);
    const err = 'e'.repeat(500);
    const tail = combinedTail(out, err, 119);
    expect(tail).toHaveLength(119);
    expect(tail).toBe(`[stdout]\n${'o'.repeat(50)}\n[stderr]\n${'e'.repeat(50)}`);
    expect(combinedTail('ok', err, 119)).toBe(`[stdout]\nok\n[stderr]\n${'e'.repeat(98)}`);
    expect(combinedTail(out, 'x', 119)).toBe(`[stdout]\n${'o'.repeat(99)}\n[stderr]\nx`);
  });

  it('never starts in the middle of a character made of two UTF-16 units', () => {
    expect(combinedTail('😀😀', '', 3)).toBe('😀');
  });
});

describe('a --verify line is split into argv, never given to a shell', () => {
  it.each([
    ['npm test -- --run', ['npm', 'test', '--', '--run']],
    [`sh -c 'npm test && npm run lint'`, ['sh', '-c', 'npm test && npm run lint']],
    [`node -e "process.exit(0)"`, ['node', '-e', 'process.exit(0)']],
    [String.raw`grep a\ b file`, ['grep', 'a b', 'file']],
    ["echo '$HOME' '*'", ['echo', '$HOME', '*']],
  ])('%s', (text, argv) => {
    expect(parseVerifyCommand(text)).toEqual(argv);
  });

  it.each([
    ['npm test && npm run lint', '&&'],
    ['npm test | tee log', '|'],
    ['npm test; echo done', ';'],
    ['npm test > log', '>'],
    ['echo $HOME', '$HOME'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's ${…}, which the line must hold as text
    ['echo "${HOME}"', '$HOME'],
    ['ls *.ts', '*.ts'],
    ['npm test # all of them', '#'],
    ['echo $(date)', '('],
  ])('refuses %s, saying it found %s', (text, found) => {
    let error: unknown;
    try {
      parseVerifyCommand(text);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(RalphError);
    expect((error as RalphError).code).toBe('refused');
    expect((error as RalphError).message).toBe(
      `--verify takes a program and its arguments, not a shell line (found ${JSON.stringify(found)}); wrap shell syntax in sh -c '…'`,
    );
  });

  it('refuses a line that names no program', () => {
    expect(() => parseVerifyCommand('  ')).toThrow('--verify must name a program to run (got "  ")');
    expect(() => parseVerifyCommand("''")).toThrow(RalphError);
  });
});
