import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { aiSdkProvider } from '../../src/ai-sdk.js';
import {
  commandProvider,
  createProviderRegistry,
  createRalphTool,
  type SubagentProvider,
} from '../../src/index.js';
import { ralph } from '../fixtures/cli-agents/harness.js';
import { scriptedModel } from '../providers/ai-sdk-mock-model.js';
import { agentCommand, cleanEnv, useScratch } from '../support/processes.js';
import { rejection } from '../support/tool.js';

const s = useScratch();

/** Workspaces no child may start in: each is made in the scratch area and named by what it is. */
const unusable: [string, () => Promise<string>][] = [
  ['a folder that does not exist', async () => join(s.logs, 'missing')],
  [
    'a file',
    async () => {
      const file = join(s.logs, 'a-file');
      await writeFile(file, 'not a folder\n');
      return file;
    },
  ],
  [
    'a dangling symbolic link',
    async () => {
      const link = join(s.logs, 'dangling');
      await symlink(join(s.logs, 'nowhere'), link);
      return link;
    },
  ],
  [
    'a symbolic link to a file',
    async () => {
      const file = join(s.logs, 'target-file');
      await writeFile(file, 'not a folder\n');
      const link = join(s.logs, 'link-to-file');
      await symlink(file, link);
      return link;
    },
  ],
];

function toolOver(provider: SubagentProvider) {
  const providers = createProviderRegistry();
  providers.register(provider);
  return createRalphTool({ subagentProvider: provider.name }, { providers });
}

describe('the workspace must be an existing folder', () => {
  it.each(unusable)('the command provider refuses %s and starts no child', async (_, make) => {
    const cwd = await make();
    const provider = commandProvider({
      command: agentCommand('report-file.mjs'),
      baseEnv: cleanEnv(),
      env: { FIXTURE_PID_LOG: s.pidLog },
    });

    const error = await rejection(
      toolOver(provider).execute({ objective: 'x' }, { agent: { id: 'p', cwd } }),
    );

    expect(`${error.message}\n${error.detail ?? ''}`).toContain(`the workspace ${cwd} is not a folder`);
    expect(await s.pids()).toEqual([]);
  });

  it.each(unusable)('the AI SDK provider refuses %s and never calls the model', async (_, make) => {
    const cwd = await make();
    const model = scriptedModel([]);
    const provider = aiSdkProvider({ model });

    const error = await rejection(
      toolOver(provider).execute({ objective: 'x' }, { agent: { id: 'p', cwd } }),
    );

    const said = `${error.message}\n${error.detail ?? ''}`;
    const named = [`the workspace "${cwd}" does not exist`, `the workspace "${cwd}" is not a folder`];
    expect(
      named.some((message) => said.includes(message)),
      said,
    ).toBe(true);
    expect(model.doGenerateCalls).toEqual([]);
  });

  it.each(unusable)('`ralph run --cwd` refuses %s with exit 2 and starts no child', async (_, make) => {
    const cwd = await make();

    const out = await ralph(
      ['run', 'x', '--agent-command', quote(agentCommand('report-file.mjs')), '--cwd', cwd],
      { env: cleanEnv({ FIXTURE_PID_LOG: s.pidLog }) },
    );

    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`ralph --cwd ${cwd} is not a directory`);
    expect(out.stdout).toBe('');
    expect(await s.pids()).toEqual([]);
  });
});
