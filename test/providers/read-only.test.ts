import { mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  claudeProvider,
  codexProvider,
  copilotProvider,
  createProviderRegistry,
  createRalphTool,
  droidProvider,
  geminiProvider,
  opencodeProvider,
  qwenProvider,
  reportJsonSchema,
  type SubagentProvider,
} from '../../src/index.js';
import type { CommandPresetOptions } from '../../src/providers/command.js';
import { binDir, cleanEnv, useScratch } from '../support/processes.js';

const s = useScratch();

/** Rounds recorded so far: each writes a record file of its own. */
let rounds = 0;

/** What the recording agent (test/fixtures/bin/recording-agent) noted of one run. */
interface Recorded {
  argv: string[];
  env: Record<string, string>;
  files: Record<string, string>;
}

/**
 * Runs one round of `preset`, with the recording agent as its program, over an empty workspace and a HOME of its
 * own; returns what the program was started with. `recordFiles` names environment variables whose files to keep.
 */
async function recordedRound(
  preset: (options: CommandPresetOptions) => SubagentProvider,
  recordFiles: string[] = [],
): Promise<Recorded> {
  const home = join(s.logs, 'home');
  await mkdir(home, { recursive: true });
  const baseEnv = cleanEnv({ HOME: home });
  for (const name of ['XDG_DATA_HOME', 'GEMINI_CLI_HOME', 'COPILOT_HOME', 'FACTORY_HOME_OVERRIDE'])
    delete baseEnv[name];
  rounds += 1;
  const record = join(s.logs, `record-${rounds}.jsonl`);
  const provider = preset({
    path: join(binDir, 'recording-agent'),
    baseEnv,
    env: { FAKE_AGENT_RECORD: record, FAKE_RECORD_FILES: recordFiles.join(','), FIXTURE_PID_LOG: s.pidLog },
  });
  const providers = createProviderRegistry();
  providers.register(provider);
  const tool = createRalphTool({ subagentProvider: provider.name }, { providers });
  const envelope = await tool.execute(
    { objective: 'check the work' },
    { agent: { id: 'parent', cwd: s.workspace } },
  );
  expect(envelope.result.status).toBe('complete');
  const [seen, ...more] = (await readFile(record, 'utf8')).split('\n').filter(Boolean);
  expect(more).toEqual([]);
  return JSON.parse(seen ?? 'null') as Recorded;
}

/** The argv of one round of the preset, with and without `readOnly` (other options as given). */
async function bothArgv<O extends CommandPresetOptions>(
  factory: (options: O) => SubagentProvider,
  options = {} as O,
): Promise<{ editing: Recorded; readOnly: Recorded }> {
  const editing = await recordedRound((base) => factory({ ...options, ...base }));
  const readOnly = await recordedRound((base) => factory({ ...options, ...base, readOnly: true }));
  return { editing, readOnly };
}

const emptyMcp = '{"mcpServers":{}}';

describe('each preset runs its CLI in the CLI’s own read-only mode when readOnly is set, and as before when not', () => {
  it('claude: dontAsk mode with the edit tools denied, in place of acceptEdits', async () => {
    const { editing, readOnly } = await bothArgv(claudeProvider);
    const head = ['-p', '--output-format', 'json', '--json-schema', JSON.stringify(reportJsonSchema)];
    const tail = ['--strict-mcp-config', '--mcp-config', emptyMcp];
    expect(editing.argv).toEqual([
      ...head,
      '--no-session-persistence',
      '--permission-mode',
      'acceptEdits',
      ...tail,
    ]);
    expect(readOnly.argv).toEqual([
      ...head,
      '--no-session-persistence',
      '--permission-mode',
      'dontAsk',
      '--disallowedTools',
      'Edit,Write,NotebookEdit',
      ...tail,
    ]);
  });

  it('codex: the read-only sandbox in place of workspace-write', async () => {
    const { editing, readOnly } = await bothArgv(codexProvider);
    const argv = (sandbox: string, env: Record<string, string>) => [
      'exec',
      '--json',
      '--output-schema',
      env.RALPH_SCHEMA_FILE,
      '-o',
      env.RALPH_REPORT_FILE,
      '-C',
      s.workspace,
      '--skip-git-repo-check',
      '--ephemeral',
      '--sandbox',
      sandbox,
      '-c',
      'mcp_servers.ralph.enabled=false',
      '-c',
      'mcp_servers.ralph.command="ralph"',
      '-',
    ];
    expect(editing.argv).toEqual(argv('workspace-write', editing.env));
    expect(readOnly.argv).toEqual(argv('read-only', readOnly.env));
  });

  it('qwen: approval mode plan in place of auto-edit', async () => {
    const { editing, readOnly } = await bothArgv(qwenProvider);
    const argv = (mode: string, env: Record<string, string>) => [
      '-o',
      'stream-json',
      '--json-schema',
      `@${env.RALPH_SCHEMA_FILE}`,
      '--chat-recording',
      'false',
      '--approval-mode',
      mode,
    ];
    expect(editing.argv).toEqual(argv('auto-edit', editing.env));
    expect(readOnly.argv).toEqual(argv('plan', readOnly.env));
  });

  it('gemini: approval mode plan in place of auto_edit', async () => {
    const { editing, readOnly } = await bothArgv(geminiProvider);
    const argv = (mode: string) => [
      '-o',
      'json',
      '--approval-mode',
      mode,
      '--skip-trust',
      '--allowed-mcp-server-names',
      'ralph_report',
    ];
    expect(editing.argv).toEqual(argv('auto_edit'));
    expect(readOnly.argv).toEqual(argv('plan'));
  });

  it('opencode: the plan agent, and the round’s config denies the edits it otherwise allows', async () => {
    const editing = await recordedRound(opencodeProvider, ['OPENCODE_CONFIG']);
    const readOnly = await recordedRound(
      (base) => opencodeProvider({ ...base, readOnly: true }),
      ['OPENCODE_CONFIG'],
    );
    const argv = ['run', '--pure', '--format', 'json', '--dir', s.workspace];
    expect(editing.argv).toEqual(argv);
    expect(readOnly.argv).toEqual([...argv, '--agent', 'plan']);
    const permission = (seen: Recorded) => JSON.parse(seen.files.OPENCODE_CONFIG ?? '{}').permission;
    expect(permission(editing)).toEqual({ edit: 'allow' });
    expect(permission(readOnly)).toEqual({ edit: 'deny' });
  });

  it('copilot: the write tools denied in place of allowed; other allowed tools stay', async () => {
    const { editing, readOnly } = await bothArgv(copilotProvider);
    const head = (env: Record<string, string>) => [
      '--output-format',
      'json',
      '--no-ask-user',
      '--no-auto-update',
      '--additional-mcp-config',
      `@${join(dirname(env.RALPH_REPORT_FILE ?? ''), 'copilot-home', 'ralph-mcp.json')}`,
    ];
    expect(editing.argv).toEqual([...head(editing.env), '--allow-tool=write', '--allow-tool=ralph_report']);
    expect(readOnly.argv).toEqual([...head(readOnly.env), '--allow-tool=ralph_report', '--deny-tool=write']);

    const withShell = await recordedRound((base) =>
      copilotProvider({ ...base, readOnly: true, allowTools: ['shell(npm test)'] }),
    );
    expect(withShell.argv.slice(6)).toEqual([
      '--allow-tool=shell(npm test)',
      '--allow-tool=ralph_report',
      '--deny-tool=write',
    ]);
  });

  it('droid: no --auto (droid exec’s default autonomy is read-only) in place of --auto medium', async () => {
    const { editing, readOnly } = await bothArgv(droidProvider);
    const hint =
      'End this round by calling the tool ralph_report___submit_report with your round report; if it is not in ' +
      'your tool list, load it first with ToolSearch "select:ralph_report___submit_report".';
    const tail = ['--cwd', s.workspace, '--append-system-prompt', hint];
    expect(editing.argv).toEqual(['exec', '-o', 'json', '--auto', 'medium', ...tail]);
    expect(readOnly.argv).toEqual(['exec', '-o', 'json', ...tail]);
  });
});

describe('readOnly refuses an option that would give the child its editing back', () => {
  it('an editing permission mode, sandbox, approval mode or autonomy level is a RangeError', () => {
    expect(() => claudeProvider({ readOnly: true, permissionMode: 'acceptEdits' })).toThrow(
      new RangeError('the claude preset cannot be read-only with permissionMode "acceptEdits"'),
    );
    expect(() => codexProvider({ readOnly: true, sandbox: 'workspace-write' })).toThrow(
      new RangeError('the codex preset cannot be read-only with sandbox "workspace-write"'),
    );
    expect(() => qwenProvider({ readOnly: true, approvalMode: 'yolo' })).toThrow(
      new RangeError('the qwen preset cannot be read-only with approvalMode "yolo"'),
    );
    expect(() => geminiProvider({ readOnly: true, approvalMode: 'auto_edit' })).toThrow(
      new RangeError('the gemini preset cannot be read-only with approvalMode "auto_edit"'),
    );
    expect(() => droidProvider({ readOnly: true, auto: 'low' })).toThrow(
      new RangeError('the droid preset cannot be read-only with auto "low"'),
    );
  });

  it('the read-only mode itself, given as well, is accepted', async () => {
    const seen = await recordedRound((base) =>
      claudeProvider({ ...base, readOnly: true, permissionMode: 'dontAsk' }),
    );
    expect(seen.argv.slice(6, 10)).toEqual([
      '--permission-mode',
      'dontAsk',
      '--disallowedTools',
      'Edit,Write,NotebookEdit',
    ]);
    expect(() => codexProvider({ readOnly: true, sandbox: 'read-only' })).not.toThrow();
    expect(() => qwenProvider({ readOnly: true, approvalMode: 'plan' })).not.toThrow();
    expect(() => geminiProvider({ readOnly: true, approvalMode: 'plan' })).not.toThrow();
  });
});
