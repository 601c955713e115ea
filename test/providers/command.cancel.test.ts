import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  type ChildRequest,
  type CommandChildRun,
  commandProvider,
  createProviderRegistry,
  createRalphTool,
  reportJsonSchema,
} from '../../src/index.js';
import { agentCommand, cleanEnv, isRunning, until, useScratch } from '../support/processes.js';
import { rejection } from '../support/tool.js';

const s = useScratch();

/** Runs `command` through the tool and stops the turn once `ready` holds; returns the call's RalphError. */
async function cancelWhen(command: string[], ready: () => Promise<boolean>, terminationGraceMs = 5_000) {
  const providers = createProviderRegistry();
  providers.register(
    commandProvider({
      command,
      baseEnv: cleanEnv(),
      env: { FIXTURE_PID_LOG: s.pidLog, FIXTURE_SIGNAL_LOG: `${s.logs}/signals` },
    }),
  );
  const tool = createRalphTool({ subagentProvider: 'command', terminationGraceMs }, { providers });
  const turn = new AbortController();
  const call = tool.execute(
    { objective: 'never ends' },
    { agent: { id: 'p', cwd: s.workspace }, signal: turn.signal },
  );
  await until(ready, 'the child to be ready');
  turn.abort();
  return rejection(call);
}

const logged = (count: number) => async () => (await s.pids()).length >= count;

function request(): ChildRequest {
  const agent = { id: 'p', cwd: s.workspace };
  return {
    runId: 'run',
    round: 1,
    maxRounds: 1,
    objective: 'x',
    handoff: null,
    prompt: 'prompt',
    outputSchema: { ...reportJsonSchema },
    cwd: s.workspace,
    parent: agent,
  };
}

describe('cancelling a round stops its process group before the call settles', () => {
  it('a hanging child gets SIGTERM; the call comes back cancelled once the child is gone', async () => {
    const error = await cancelWhen(agentCommand('hang.mjs'), logged(1));
    expect(error.code).toBe('cancelled');
    expect(error.message).toBe('Ralph workflow was cancelled');
    const [pid] = await s.pids();
    expect(isRunning(pid as number)).toBe(false);
  });

  it('a child that ignores SIGTERM is killed after the grace, and the call waits for it', async () => {
    const error = await cancelWhen(agentCommand('ignore-sigterm.mjs'), logged(1), 300);
    expect(error.message).toBe('Ralph workflow was cancelled');
    expect(await readFile(`${s.logs}/signals`, 'utf8')).toBe('SIGTERM\n');
    const [pid] = await s.pids();
    expect(isRunning(pid as number)).toBe(false);
  });

  it('a child that started a grandchild: the whole group is gone after cancel', async () => {
    const error = await cancelWhen(agentCommand('spawn-grandchild.mjs', 'hang'), logged(2));
    expect(error.message).toBe('Ralph workflow was cancelled');
    const [child, grandchild] = await s.pids();
    expect(isRunning(child as number)).toBe(false);
    // The grandchild got SIGTERM with its parent; it is not reaped by us, so it may finish dying a moment later.
    await until(() => !isRunning(grandchild as number), 'the grandchild to stop');
  });
});

describe('the report of an aborted child settles only after the process exited', () => {
  it('SIGTERM first; SIGKILL only after the grace; the report rejects once the process is dead', async () => {
    const provider = commandProvider({
      command: agentCommand('ignore-sigterm.mjs'),
      baseEnv: cleanEnv(),
      env: { FIXTURE_PID_LOG: s.pidLog, FIXTURE_SIGNAL_LOG: `${s.logs}/signals` },
    });
    const abort = new AbortController();
    const run = (await provider.start(request(), {
      signal: abort.signal,
      terminationGraceMs: 2_000,
    })) as CommandChildRun;
    let settled = false;
    const report = run.report.finally(() => {
      settled = true;
    });
    await until(logged(1), 'the child to handle SIGTERM');
    expect(await s.pids()).toEqual([run.pid]);

    abort.abort();
    await until(async () => (await readFile(`${s.logs}/signals`, 'utf8').catch(() => '')) !== '', 'SIGTERM');
    // The child shrugged SIGTERM off: it still runs, and its report has not settled.
    expect(isRunning(run.pid)).toBe(true);
    expect(settled).toBe(false);

    await expect(report).rejects.toThrow(/was killed by SIGKILL/);
    expect(isRunning(run.pid)).toBe(false);
  });
});

describe('nothing a round started outlives it', () => {
  it('a grandchild left running after the child reported is stopped with the round', async () => {
    const providers = createProviderRegistry();
    providers.register(
      commandProvider({
        command: agentCommand('spawn-grandchild.mjs', 'exit', 'holds-pipes'),
        baseEnv: cleanEnv(),
        env: { FIXTURE_PID_LOG: s.pidLog },
      }),
    );
    const tool = createRalphTool({ subagentProvider: 'command' }, { providers });
    const envelope = await tool.execute({ objective: 'x' }, { agent: { id: 'p', cwd: s.workspace } });
    expect(envelope.result.status).toBe('complete');
    const [child, grandchild] = await s.pids();
    expect(isRunning(child as number)).toBe(false);
    // The round settled once the grandchild had died of the SIGTERM it got.
    expect(isRunning(grandchild as number)).toBe(false);
  });

  it('a grandchild that let go of the pipes is stopped too', async () => {
    const providers = createProviderRegistry();
    providers.register(
      commandProvider({
        command: agentCommand('spawn-grandchild.mjs', 'exit'),
        baseEnv: cleanEnv(),
        env: { FIXTURE_PID_LOG: s.pidLog },
      }),
    );
    const tool = createRalphTool({ subagentProvider: 'command' }, { providers });
    const envelope = await tool.execute({ objective: 'x' }, { agent: { id: 'p', cwd: s.workspace } });
    expect(envelope.result.status).toBe('complete');
    const [, grandchild] = await s.pids();
    // It got SIGTERM as the child exited, and the round settled only once it had died.
    expect(isRunning(grandchild as number)).toBe(false);
  });

  it('a grandchild that ignores SIGTERM is killed at the grace, before the round settles', async () => {
    const providers = createProviderRegistry();
    providers.register(
      commandProvider({
        command: agentCommand('spawn-grandchild.mjs', 'exit', 'ignores-sigterm'),
        baseEnv: cleanEnv(),
        env: { FIXTURE_PID_LOG: s.pidLog },
      }),
    );
    const tool = createRalphTool({ subagentProvider: 'command', terminationGraceMs: 300 }, { providers });
    const envelope = await tool.execute({ objective: 'x' }, { agent: { id: 'p', cwd: s.workspace } });
    expect(envelope.result.status).toBe('complete');
    const [, grandchild] = await s.pids();
    expect(isRunning(grandchild as number)).toBe(false);
  });
});
