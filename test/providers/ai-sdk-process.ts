import { readFileSync } from 'node:fs';
import { access, readFile } from 'node:fs/promises';

/** True when no process with this pid is running (a zombie waiting to be reaped counts as gone). */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as { code?: unknown }).code === 'ESRCH';
  }
  try {
    // "pid (name) S ...": the state follows the last parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** Waits until `file` exists (the commands below write it once they run), then reads the pids in it. */
export async function pidsWrittenTo(file: string): Promise<number[]> {
  for (;;) {
    try {
      await access(file);
      const text = await readFile(file, 'utf8');
      if (text.endsWith('\n')) return JSON.parse(text) as number[];
    } catch {
      // not written yet
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A node program that starts a grandchild in its own process group, writes both pids to `pids.json` in its cwd,
 * ignores SIGTERM (as does the grandchild) and never ends by itself: only SIGKILL to the group stops it.
 */
export const STUBBORN_PROGRAM = [
  "const fs = require('node:fs');",
  "const { spawn } = require('node:child_process');",
  "process.on('SIGTERM', () => {});",
  "const grandchild = spawn(process.execPath, ['-e', 'process.on(\"SIGTERM\", () => {}); setInterval(() => {}, 1000)'], { stdio: 'ignore' });",
  "fs.writeFileSync('pids.json', JSON.stringify([process.pid, grandchild.pid]) + '\\n');",
  'setInterval(() => {}, 1000);',
].join('\n');
