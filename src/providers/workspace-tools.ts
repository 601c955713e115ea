import type { Dirent } from 'node:fs';
import { mkdir, open, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type ToolSet, tool } from 'ai';
import { z } from 'zod';
import { runWorkspaceCommand } from './workspace-command.js';
import { resolveInWorkspace } from './workspace-path.js';

/** What the workspace tools of one round are bound to. */
export interface WorkspaceToolsOptions {
  /** The workspace as a real path (see `workspaceRoot`); every file tool stays inside it. */
  root: string;
  /** Wall-clock limit of one command. */
  commandTimeoutMs: number;
  /** Time a stopped command gets between SIGTERM and SIGKILL. */
  killGraceMs: number;
  /** Bytes of a file, a listing or each command stream handed back to the model. */
  maxOutputBytes: number;
  /** The round's abort signal: a command running when it fires is stopped. */
  signal: AbortSignal;
  /** Told about every command started, so the round can wait until all of them have exited. */
  track?: (running: Promise<unknown>) => void;
}

/** Folders a listing names but does not descend into: large, and never the work itself. */
const NOT_DESCENDED = new Set(['.git', 'node_modules']);
const MAX_LISTED = 1000;

const relativeTo = (root: string, target: string): string => path.relative(root, target) || '.';

async function readBounded(file: string, maxBytes: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    return size > maxBytes ? `${text}\n[… file continues: ${size - maxBytes} more bytes not shown]` : text;
  } finally {
    await handle.close();
  }
}

async function listTree(root: string, start: string): Promise<string> {
  const lines: string[] = [];
  let more = false;
  const walk = async (dir: string): Promise<void> => {
    const entries: Dirent[] = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (lines.length >= MAX_LISTED) {
        more = true;
        return;
      }
      const full = path.join(dir, entry.name);
      // Symbolic links are listed, never followed: a link may lead out of the workspace.
      if (entry.isDirectory()) {
        lines.push(`${relativeTo(root, full)}/`);
        if (!NOT_DESCENDED.has(entry.name)) await walk(full);
      } else {
        lines.push(relativeTo(root, full));
      }
    }
  };
  await walk(start);
  if (lines.length === 0) return '(empty)';
  return more ? `${lines.join('\n')}\n[… listing stopped at ${MAX_LISTED} entries]` : lines.join('\n');
}

/**
 * The tools a fresh in-process child works with: read, write and list files inside the workspace, and run a
 * command there (an argv array, no shell) with a timeout. Failures (a refused path, a missing file, a program that
 * cannot start) throw, which the AI SDK hands back to the model as a tool error it can act on; a command that
 * exits non-zero is an ordinary result the model reads.
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions): ToolSet {
  const { root } = options;
  return {
    read_file: tool({
      description: 'Read a text file of the workspace. Paths are relative to the workspace root.',
      inputSchema: z.object({ path: z.string().describe('File path, relative to the workspace root.') }),
      execute: async ({ path: requested }) =>
        readBounded(await resolveInWorkspace(root, requested), options.maxOutputBytes),
    }),
    write_file: tool({
      description:
        'Create or overwrite a text file of the workspace with the given content; missing folders are created.',
      inputSchema: z.object({
        path: z.string().describe('File path, relative to the workspace root.'),
        content: z.string().describe('The whole new content of the file.'),
      }),
      execute: async ({ path: requested, content }) => {
        const file = await resolveInWorkspace(root, requested);
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, content, 'utf8');
        return `Wrote ${Buffer.byteLength(content, 'utf8')} bytes to ${relativeTo(root, file)}`;
      },
    }),
    list_files: tool({
      description:
        'List the files and folders under a folder of the workspace, recursively (folders end with "/"; .git and node_modules are not descended into).',
      inputSchema: z.object({
        path: z
          .string()
          .describe('Folder path, relative to the workspace root; "." for the whole workspace.'),
      }),
      execute: async ({ path: requested }) => listTree(root, await resolveInWorkspace(root, requested)),
    }),
    run_command: tool({
      description: `Run a program in the workspace root, without a shell, and return its exit code and output. It is stopped after ${options.commandTimeoutMs} ms; stdin is empty.`,
      inputSchema: z.object({
        argv: z
          .array(z.string())
          .min(1)
          .describe('The program and its arguments, e.g. ["npm", "test"]. No shell: no pipes, globs or &&.'),
      }),
      execute: async ({ argv }, { abortSignal }) => {
        const signal =
          abortSignal === undefined ? options.signal : AbortSignal.any([options.signal, abortSignal]);
        const running = runWorkspaceCommand(argv, {
          cwd: root,
          timeoutMs: options.commandTimeoutMs,
          killGraceMs: options.killGraceMs,
          maxOutputBytes: options.maxOutputBytes,
          signal,
        });
        options.track?.(running);
        return running;
      },
    }),
  };
}
