import path from 'node:path';
import { type ToolSet, tool } from 'ai';
import { z } from 'zod';
import { runWorkspaceCommand } from './workspace-command.js';
import {
  type Confinement,
  confinementOf,
  openWorkspaceFolder,
  readWorkspaceFile,
  type WorkspaceFolder,
  writeWorkspaceFile,
} from './workspace-files.js';

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
  /** The environment commands inherit (RALPH_DEPTH raised by one); default `process.env`. */
  baseEnv?: NodeJS.ProcessEnv;
}

/** Folders a listing names but does not descend into: large, and never the work itself. */
const NOT_DESCENDED = new Set(['.git', 'node_modules']);
const MAX_LISTED = 1000;

const relativeTo = (root: string, target: string): string => path.relative(root, target) || '.';

/** The listing of a folder held open, depth first, in name order; links are named, never followed. */
async function listTree(root: string, start: WorkspaceFolder): Promise<string> {
  const lines: string[] = [];
  let more = false;
  const walk = async (folder: WorkspaceFolder): Promise<void> => {
    const entries = [...folder.entries].sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (lines.length >= MAX_LISTED) {
        more = true;
        return;
      }
      const full = path.join(folder.path, entry.name);
      // Symbolic links are listed, never followed: a link may lead out of the workspace.
      if (entry.isDirectory()) {
        lines.push(`${relativeTo(root, full)}/`);
        if (NOT_DESCENDED.has(entry.name)) continue;
        const sub = await folder.open(entry.name);
        try {
          await walk(sub);
        } finally {
          await sub.close();
        }
      } else {
        lines.push(relativeTo(root, full));
      }
    }
  };
  try {
    await walk(start);
  } finally {
    await start.close();
  }
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
  let confined: Promise<Confinement> | undefined;
  const confinement = () => {
    confined ??= confinementOf(root);
    return confined;
  };
  return {
    read_file: tool({
      description: 'Read a text file of the workspace. Paths are relative to the workspace root.',
      inputSchema: z.object({ path: z.string().describe('File path, relative to the workspace root.') }),
      execute: async ({ path: requested }) =>
        readWorkspaceFile(await confinement(), requested, options.maxOutputBytes),
    }),
    write_file: tool({
      description:
        'Create or overwrite a text file of the workspace with the given content; missing folders are created.',
      inputSchema: z.object({
        path: z.string().describe('File path, relative to the workspace root.'),
        content: z.string().describe('The whole new content of the file.'),
      }),
      execute: async ({ path: requested, content }) => {
        const file = await writeWorkspaceFile(await confinement(), requested, content);
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
      execute: async ({ path: requested }) =>
        listTree(root, await openWorkspaceFolder(await confinement(), requested)),
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
          ...(options.baseEnv === undefined ? {} : { baseEnv: options.baseEnv }),
        });
        options.track?.(running);
        return running;
      },
    }),
  };
}
