import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processSandbox } from '../../src/process/sandbox-spec.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder in /tmp, which is private in the sandbox (whatever TMPDIR says). */
function inTmp(prefix: string): string {
  const dir = mkdtempSync(join('/tmp', prefix));
  made.push(dir);
  return dir;
}

const sandbox = { network: 'keep' as const, env: [], hide: [] };

describe('files the command names under /tmp', () => {
  it('a script in a folder of its own is bound with its folder, read-only', () => {
    const scripts = inTmp('ralph-spec-script-');
    writeFileSync(join(scripts, 'agent.mjs'), '');
    const workspace = inTmp('ralph-spec-ws-');
    const { spec } = processSandbox(
      sandbox,
      { cwd: workspace, writesWorkspace: true, programs: ['node', join(scripts, 'agent.mjs')] },
      { PATH: '/usr/bin', HOME: '/nonexistent-home' },
    );
    expect(spec.readOnly).toContain(scripts);
  });

  it('a file in a folder bound writable (the round’s schema file, a check in the workspace) leaves it writable', () => {
    const round = inTmp('ralph-spec-round-');
    writeFileSync(join(round, 'report.schema.json'), '{}');
    const workspace = inTmp('ralph-spec-ws-');
    mkdirSync(join(workspace, 'checks'));
    writeFileSync(join(workspace, 'checks', 'check.mjs'), '');
    const { spec } = processSandbox(
      sandbox,
      {
        cwd: workspace,
        writesWorkspace: true,
        writable: [round],
        programs: [
          'codex',
          '--output-schema',
          join(round, 'report.schema.json'),
          join(workspace, 'checks', 'check.mjs'),
        ],
      },
      { PATH: '/usr/bin', HOME: '/nonexistent-home' },
    );
    expect(spec.writable).toEqual([workspace, round]);
    expect(spec.readOnly).not.toContain(round);
    expect(spec.readOnly).not.toContain(join(workspace, 'checks'));
  });
});
