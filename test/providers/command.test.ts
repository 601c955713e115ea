import { access, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  type CommandProviderOptions,
  commandProvider,
  createProviderRegistry,
  createRalphTool,
  defaultReportReader,
  isUnreadableReport,
  MAX_OBJECTIVE_CHARS,
  type RalphConfigInput,
  type RalphReport,
  renderRoundPrompt,
  reportJsonSchema,
} from '../../src/index.js';
import { defaultUsageReader } from '../../src/providers/command.js';
import { agentCommand, cleanEnv, useScratch } from '../support/processes.js';
import { rejection } from '../support/tool.js';

const s = useScratch();

/** A ralph tool whose rounds run `command` through the command provider. */
function commandTool(
  command: string | string[],
  env: Record<string, string> = {},
  config: Partial<RalphConfigInput> = {},
  options: Partial<CommandProviderOptions> = {},
) {
  const providers = createProviderRegistry();
  providers.register(
    commandProvider({ command, baseEnv: cleanEnv(), env: { FIXTURE_PID_LOG: s.pidLog, ...env }, ...options }),
  );
  return createRalphTool({ subagentProvider: 'command', ...config }, { providers });
}

const agent = () => ({ id: 'parent', cwd: s.workspace });

interface Recorded {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  prompt: string;
  schema: unknown;
}

async function recorded(file: string): Promise<Recorded[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Recorded);
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('the command agent protocol: one fresh process per round', () => {
  it('hands each round its prompt on stdin, the RALPH_* environment and the workspace as cwd; the report file is the report', async () => {
    const record = `${s.logs}/requests.jsonl`;
    const tool = commandTool(agentCommand('report-file.mjs', '--flag', 'a b'), {
      FIXTURE_RECORD: record,
      FIXTURE_COMPLETE_AT: '2',
    });
    const envelope = await tool.execute({ objective: 'write two files', maxRounds: 5 }, { agent: agent() });

    expect(envelope.result.status).toBe('complete');
    expect(envelope.result.rounds).toBe(2);
    expect(envelope.agentsStarted).toBe(2);
    expect(envelope.result.report.summary).toBe('round 2 finished');

    const [first, second] = await recorded(record);
    if (first === undefined || second === undefined) throw new Error('expected two recorded rounds');
    const workspace = await realpath(s.workspace);
    const tmp = await realpath(tmpdir());
    const round1: RalphReport = {
      status: 'continue',
      summary: 'round 1 done',
      evidence: [],
      nextSteps: ['do round 2'],
      blocker: null,
    };
    for (const [round, seen, handoff] of [
      [1, first, null],
      [2, second, round1],
    ] as const) {
      expect(seen.argv).toEqual(['--flag', 'a b']);
      expect(seen.cwd).toBe(workspace);
      expect(seen.prompt).toBe(
        renderRoundPrompt({ objective: 'write two files', round, maxRounds: 5, handoff }),
      );
      expect(seen.schema).toEqual(reportJsonSchema);
      expect(seen.env.RALPH_RUN_ID).toBe(envelope.runId);
      expect(seen.env.RALPH_ROUND).toBe(String(round));
      expect(seen.env.RALPH_MAX_ROUNDS).toBe('5');
      expect(seen.env.RALPH_DEPTH).toBe('1');
      // The run's handoff cap, for a report tool that checks a report before the round ends.
      expect(seen.env.RALPH_MAX_HANDOFF_CHARS).toBe('16384');
      expect(seen.env.RALPH_REPORT_FILE?.startsWith(tmp)).toBe(true);
      expect(seen.env.RALPH_SCHEMA_FILE?.startsWith(tmp)).toBe(true);
      // Fresh temporary files each round, removed once the round is over.
      expect(await exists(seen.env.RALPH_REPORT_FILE as string)).toBe(false);
      expect(await exists(seen.env.RALPH_SCHEMA_FILE as string)).toBe(false);
    }
    expect(first.env.RALPH_REPORT_FILE).not.toBe(second.env.RALPH_REPORT_FILE);
    expect(await readFile(`${s.workspace}/round-1.txt`, 'utf8')).toBe('written by round 1\n');
    expect(await readFile(`${s.workspace}/round-2.txt`, 'utf8')).toBe('written by round 2\n');
  });

  it('reads the last JSON object on stdout when the child wrote no report file', async () => {
    const tool = commandTool(agentCommand('stdout-report.mjs'), { FIXTURE_COMPLETE_AT: '2' });
    const envelope = await tool.execute({ objective: 'report on stdout' }, { agent: agent() });
    expect(envelope.result).toEqual({
      status: 'complete',
      rounds: 2,
      report: {
        status: 'complete',
        summary: 'round 2 finished',
        evidence: ['round-2.txt written'],
        nextSteps: [],
        blocker: null,
      },
    });
  });

  it('does not mind a child that never reads its prompt (a prompt too big for the pipe meets EPIPE)', async () => {
    const tool = commandTool(agentCommand('stdout-report.mjs'));
    // The longest objective a call may carry: with the prompt around it, more than any pipe holds (1 MiB at most).
    const objective = `do it ${'x'.repeat(MAX_OBJECTIVE_CHARS - 'do it '.length)}`;
    const envelope = await tool.execute({ objective }, { agent: agent() });
    expect(envelope.result.status).toBe('complete');
  });

  it('splits a command given as one string into argv, without a shell', async () => {
    const record = `${s.logs}/requests.jsonl`;
    const [node, script] = agentCommand('report-file.mjs');
    const tool = commandTool(`"${node}" '${script}' --fast "two words" it\\'s`, { FIXTURE_RECORD: record });
    await tool.execute({ objective: 'x' }, { agent: agent() });
    const [seen] = await recorded(record);
    expect(seen?.argv).toEqual(['--fast', 'two words', "it's"]);
  });

  it('increments RALPH_DEPTH from the parent environment', async () => {
    const record = `${s.logs}/requests.jsonl`;
    const providers = createProviderRegistry();
    providers.register(
      commandProvider({
        command: agentCommand('report-file.mjs'),
        baseEnv: { ...cleanEnv(), RALPH_DEPTH: '1' },
        env: { FIXTURE_RECORD: record, FIXTURE_PID_LOG: s.pidLog },
      }),
    );
    const tool = createRalphTool({ subagentProvider: 'command' }, { providers });
    await tool.execute({ objective: 'x' }, { agent: agent() });
    const [seen] = await recorded(record);
    expect(seen?.env.RALPH_DEPTH).toBe('2');
  });
});

describe("a round never sees an earlier round's files (round folders are reused between rounds)", () => {
  /** A node agent from source: round 1 runs `first`, every later round `later`; both see `fs` and `env`. */
  const rounds = (first: string, later: string) => [
    process.execPath,
    '-e',
    `const fs = require('node:fs'); const env = process.env; process.stdin.resume();
     process.stdin.on('end', () => { if (env.RALPH_ROUND === '1') { ${first} } else { ${later} } });`,
  ];
  const continueReport = JSON.stringify({
    status: 'continue',
    summary: 'round 1 done',
    evidence: [],
    nextSteps: ['do round 2'],
    blocker: null,
  });

  it("a round whose child writes no report is a missing report, not the round before's", async () => {
    const tool = commandTool(rounds(`fs.writeFileSync(env.RALPH_REPORT_FILE, '${continueReport}');`, ''));
    const error = await rejection(tool.execute({ objective: 'x' }, { agent: agent() }));
    expect(error.message).toMatch(
      /^Ralph workflow failed: round 2 child finished without a structured report/,
    );
  });

  it('a child that overwrites its schema file does not hand the next round a changed schema', async () => {
    const tool = commandTool(
      rounds(
        `fs.writeFileSync(env.RALPH_SCHEMA_FILE, '{"tampered":true}'); fs.writeFileSync(env.RALPH_REPORT_FILE, '${continueReport}');`,
        `const schema = JSON.parse(fs.readFileSync(env.RALPH_SCHEMA_FILE, 'utf8'));
         const ok = JSON.stringify(schema) === ${JSON.stringify(JSON.stringify(reportJsonSchema))};
         fs.writeFileSync(env.RALPH_REPORT_FILE, JSON.stringify({ status: 'complete', summary: ok ? 'schema intact' : 'schema changed', evidence: ['read it'], nextSteps: [], blocker: null }));`,
      ),
    );
    const envelope = await tool.execute({ objective: 'x' }, { agent: agent() });
    expect(envelope.result.report.summary).toBe('schema intact');
  });
});

describe('a child that fails before reporting is an ordinary child failure', () => {
  it('exits non-zero: the round fails, and the error carries the exit code and the end of stderr', async () => {
    const tool = commandTool(agentCommand('crash.mjs', '3'));
    const error = await rejection(tool.execute({ objective: 'x' }, { agent: agent() }));
    expect(error.code).toBe('child-failed');
    expect(error.message).toBe(
      'Ralph round 1 child failed before producing a structured report.\nNo previous handoff was available.',
    );
    expect(error.detail).toMatch(
      /exited with code 3; stderr ends with:\nfatal: the fixture crashed on purpose$/,
    );
  });

  it('crashes in a later round: the error carries the last successful handoff', async () => {
    const tool = commandTool(agentCommand('crash.mjs'), { FIXTURE_CRASH_AT: '2', FIXTURE_COMPLETE_AT: '9' });
    const error = await rejection(tool.execute({ objective: 'x' }, { agent: agent() }));
    const handoff: RalphReport = {
      status: 'continue',
      summary: 'round 1 done',
      evidence: [],
      nextSteps: ['do round 2'],
      blocker: null,
    };
    expect(error.message).toBe(
      `Ralph round 2 child failed before producing a structured report.\nLast successful handoff:\n${JSON.stringify(handoff, null, 2)}`,
    );
    expect(error.round).toBe(2);
    expect(error.lastHandoff).toEqual(handoff);
  });

  it.each(['SIGKILL', 'SIGSEGV'])('dies by %s: the round fails, naming the signal', async (signal) => {
    const tool = commandTool(agentCommand('killed-by-signal.mjs', signal));
    const error = await rejection(tool.execute({ objective: 'x' }, { agent: agent() }));
    expect(error.code).toBe('child-failed');
    expect(error.message).toBe(
      'Ralph round 1 child failed before producing a structured report.\nNo previous handoff was available.',
    );
    expect(error.detail).toContain(`was killed by ${signal}; stderr ends with:\nabout to die by a signal`);
  });
});

describe('a child that exits 0 without a usable report fails the workflow', () => {
  it('reports nothing at all', async () => {
    const tool = commandTool(agentCommand('no-report.mjs'));
    const error = await rejection(tool.execute({ objective: 'x' }, { agent: agent() }));
    expect(error.code).toBe('workflow-failed');
    expect(error.message).toBe('Ralph workflow failed: round 1 child finished without a structured report');
  });

  it('prints garbage on stdout (braces, quotes, no JSON object)', async () => {
    const tool = commandTool(agentCommand('garbage.mjs', 'stdout'));
    const error = await rejection(tool.execute({ objective: 'x' }, { agent: agent() }));
    expect(error.message).toBe('Ralph workflow failed: round 1 child finished without a structured report');
  });

  // The parse error itself is checked below, on the reader.
  it.each([
    ['garbage', 'garbage.mjs'],
    ['partial JSON', 'partial-json.mjs'],
  ])('writes %s into the report file: a malformed report', async (_, fixture) => {
    const tool = commandTool(agentCommand(fixture, 'report-file'));
    const error = await rejection(tool.execute({ objective: 'x' }, { agent: agent() }));
    expect(error.code).toBe('workflow-failed');
    expect(error.message).toMatch(
      /^Ralph workflow failed: round 1 report is malformed: the report file \/\S+\/report\.json is not JSON: \S/,
    );
    expect(error.detail).toMatch(/^the report file \/\S+\/report\.json is not JSON: /);
  });

  it('prints partial JSON on stdout', async () => {
    const tool = commandTool(agentCommand('partial-json.mjs', 'stdout'));
    const error = await rejection(tool.execute({ objective: 'x' }, { agent: agent() }));
    expect(error.message).toBe('Ralph workflow failed: round 1 child finished without a structured report');
  });
});

describe('the default report reader keeps what was wrong with a report', () => {
  const outputs = (stdout = '') => ({ reportFile: `${s.logs}/report.json`, stdout, stderr: '', exitCode: 0 });
  const parseErrorOf = (text: string): string => {
    try {
      JSON.parse(text);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error(`${text} parses`);
  };

  it.each([
    ['garbage', 'not json at all {{{'],
    ['partial JSON', '{"status": "complete", "summary": "cut off'],
  ])('a report file holding %s is a malformed report whose problem is the parse error', async (_, text) => {
    await writeFile(`${s.logs}/report.json`, text);
    const report = await defaultReportReader()(outputs('{"status":"complete"}'));
    expect(isUnreadableReport(report)).toBe(true);
    expect(report).toMatchObject({
      kind: 'malformed',
      problem: `the report file ${s.logs}/report.json is not JSON: ${parseErrorOf(text)}`,
    });
  });

  it('a report file that parses is the report, whatever stdout says', async () => {
    await writeFile(`${s.logs}/report.json`, '{"from":"file"}');
    expect(await defaultReportReader()(outputs('{"from":"stdout"}'))).toEqual({ from: 'file' });
  });

  it('a report file that is a symbolic link is a malformed report: ralph never reads through it', async () => {
    await writeFile(`${s.logs}/elsewhere.json`, '{"status":"complete"}');
    await symlink(`${s.logs}/elsewhere.json`, `${s.logs}/report.json`);
    const report = await defaultReportReader()(outputs('{"from":"stdout"}'));
    expect(report).toMatchObject({
      kind: 'malformed',
      problem: `the report file ${s.logs}/report.json is a symbolic link, which ralph does not follow`,
    });
  });

  it('a usage file that is a symbolic link says nothing', async () => {
    await writeFile(`${s.logs}/elsewhere.json`, '{"costUsd":1}');
    await symlink(`${s.logs}/elsewhere.json`, `${s.logs}/usage.json`);
    expect(await defaultUsageReader()({ ...outputs(), usageFile: `${s.logs}/usage.json` })).toBeNull();
  });

  it('no report file: the last JSON object on stdout, else nothing (a missing report)', async () => {
    expect(await defaultReportReader()(outputs('log {"from":"stdout"} done'))).toEqual({ from: 'stdout' });
    expect(await defaultReportReader()(outputs('no report here'))).toBeUndefined();
  });
});

describe('a child that cannot be started fails the workflow and starts nothing', () => {
  it('names a program that does not exist', async () => {
    const tool = commandTool(['ralph-no-such-program-anywhere', '--x']);
    const error = await rejection(tool.execute({ objective: 'x' }, { agent: agent() }));
    expect(error.code).toBe('workflow-failed');
    expect(error.message).toBe(
      'Ralph workflow failed: subagent provider "command" failed to start round 1: could not start agent command "ralph-no-such-program-anywhere": spawn ralph-no-such-program-anywhere ENOENT',
    );
  });

  it('is asked to work in a folder that does not exist', async () => {
    const tool = commandTool(agentCommand('report-file.mjs'));
    const missing = `${s.workspace}/missing`;
    const error = await rejection(tool.execute({ objective: 'x' }, { agent: { id: 'p', cwd: missing } }));
    expect(error.message).toBe(
      `Ralph workflow failed: subagent provider "command" failed to start round 1: the workspace ${missing} is not a folder`,
    );
    expect(await s.pids()).toEqual([]);
  });
});

describe('the provider as a SubagentProvider', () => {
  it('declares structured output, fresh children, and that it can start them in the sandbox', () => {
    const provider = commandProvider({ command: ['true'] });
    expect(provider.name).toBe('command');
    expect(provider.capabilities).toEqual({
      structuredOutput: true,
      inheritsParentContext: false,
      sandbox: true,
    });
    expect(commandProvider({ name: 'mine', command: 'true' }).name).toBe('mine');
  });

  it('refuses a command string that only a shell could run, when it is created', () => {
    expect(() => commandProvider({ command: 'node agent.mjs | tee log' })).toThrow(
      'Ralph agent command "node agent.mjs | tee log" is invalid: it contains the shell operator |; it is not run by a shell, so quote it or drop it',
    );
  });
});
