import { z } from 'zod';
import { refComponentProblem } from './ref-component.js';
import { formatIssues } from './zod-issues.js';

export { refComponentProblem } from './ref-component.js';

/** A task or batch id's characters: what its branches (`ralph/<batch-id>/<task-id>`) and folders are named after. */
const ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * Why `id` cannot be a task's id or a batch's, or null when it can: 1-64 of a-z, 0-9, `.`, `_`, `-`, starting with a
 * letter or digit, and one component of a git branch name (no `..`, no trailing `.` or `.lock`).
 */
export function idProblem(id: string): string | null {
  if (!ID.test(id)) return 'must be 1-64 of a-z, 0-9, ".", "_", "-", starting with a letter or digit';
  const problem = refComponentProblem(id);
  return problem === null ? null : `${JSON.stringify(id)} cannot name a git branch: ${problem}`;
}

/**
 * The most a tasks file may hold, in bytes (1 MiB): a batch of tasks is a few kilobytes, and every task's objective
 * travels in each of its rounds' prompts. A larger file is refused before it is parsed.
 */
export const MAX_TASKS_FILE_BYTES = 1_048_576;

/** One task of a tasks file as JSON gives it. */
const taskSchema = z
  .object({
    id: z.string().superRefine((id, context) => {
      const problem = idProblem(id);
      if (problem !== null) context.addIssue({ code: 'custom', message: problem });
    }),
    objective: z
      .string()
      .refine((text) => text.trim() !== '', 'must not be empty')
      .refine((text) => !text.includes('\0'), 'must not contain a NUL character'),
    after: z.array(z.string()).optional(),
    agent: z.string().min(1).optional(),
    verify: z.string().min(1).optional(),
    maxRounds: z.number().int().positive().max(256).optional(),
  })
  .strict();

const taskListSchema = z.array(taskSchema).min(1, 'lists no task');
const tasksObjectSchema = z.object({ tasks: taskListSchema }).strict();

/** One task of a batch: one Ralph loop with its own immutable objective, in its own worktree. */
export type BatchTask = z.infer<typeof taskSchema> & { after: string[] };

/** A tasks file that cannot be a batch: its message says where and why. */
export class TasksFileError extends Error {
  override name = 'TasksFileError';
}

/** A checklist line: `- [ ] objective` (or `*`, `+`); its indent, whether it is ticked, and its text (to be trimmed). */
const CHECKLIST_LINE = /^(\s*)[-*+]\s+\[([ xX])\]\s(.*)$/;

/** A checklist line's indent, box and text: each group of CHECKLIST_LINE always takes part in a match. */
type ChecklistItem = [line: string, indent: string, box: string, text: string];

/**
 * The tasks of a Markdown checklist: each top-level `- [ ] objective` is a task (ids `task-1`, `task-2`, … in
 * order), the indented lines under it are its detail, appended to its objective. A ticked box (`- [x]`) is done
 * already and left out, but keeps its number so ids do not shift when boxes are ticked.
 */
export function parseChecklist(text: string): BatchTask[] {
  const tasks: BatchTask[] = [];
  let current: { task: BatchTask; indent: number; detail: string[] } | null = null;
  let number = 0;
  const close = () => {
    if (current === null) return;
    // The detail keeps its own nesting: only the indent all its lines share goes.
    // A loop, not Math.min(...lines): a task may have more detail lines than a call takes arguments.
    const lines = current.detail;
    let shared = Number.POSITIVE_INFINITY;
    for (const line of lines) shared = Math.min(shared, line.search(/\S/));
    const detail = lines
      .map((line) => line.slice(shared))
      .join('\n')
      .trimEnd();
    if (detail !== '') current.task.objective = `${current.task.objective}\n${detail}`;
    current = null;
  };
  for (const line of text.split(/\r?\n/)) {
    const item = CHECKLIST_LINE.exec(line) as ChecklistItem | null;
    if (item !== null && (current === null || item[1].length <= current.indent)) {
      close();
      number += 1;
      if (item[2] !== ' ') continue;
      const objective = item[3].trim();
      if (objective === '')
        throw new TasksFileError(`task ${number} (line "${line.trim()}") has no objective`);
      current = { task: { id: `task-${number}`, objective, after: [] }, indent: item[1].length, detail: [] };
      tasks.push(current.task);
      continue;
    }
    const nested = line.trim() !== '' && /^\s/.test(line);
    if (current !== null && nested) current.detail.push(line);
    else if (line.trim() !== '') close(); // a top-level line ends the task's detail (a blank one does not)
  }
  close();
  if (tasks.length === 0) throw new TasksFileError('it lists no open task ("- [ ] objective")');
  return tasks;
}

/** The tasks of a tasks file's data, as JSON or YAML gives it: an array of tasks, or `{ tasks: [...] }`. */
export function tasksOfData(data: unknown): BatchTask[] {
  if (data === null || data === undefined) throw new TasksFileError('it is empty: it lists no task');
  // A list or a `tasks` object, checked as the one it is, so each refusal names the field at fault.
  const parsed = Array.isArray(data)
    ? taskListSchema.safeParse(data)
    : tasksObjectSchema.transform((file) => file.tasks).safeParse(data);
  if (!parsed.success) throw new TasksFileError(formatIssues(parsed.error));
  return parsed.data.map((task) => ({ ...task, after: task.after ?? [] }));
}

/** The tasks of a JSON tasks file: an array of tasks, or `{ "tasks": [...] }`. */
export function parseTasksJson(text: string): BatchTask[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new TasksFileError(`it is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  return tasksOfData(data);
}

/**
 * The tasks of a YAML tasks file: the same list (or `tasks:` mapping) and fields as JSON. The `yaml` package is
 * loaded only here, so a batch from a checklist or JSON file (and every other command) never loads it.
 */
export async function parseTasksYaml(text: string): Promise<BatchTask[]> {
  const { parse } = await import('yaml');
  let data: unknown;
  try {
    // The yaml package's defaults: YAML 1.2's core schema (no dates or other implicit types beyond JSON's), and a
    // repeated key is an error.
    data = parse(text);
  } catch (error) {
    // The parser's message goes on with a picture of the line; its first line says what and where.
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] as string;
    throw new TasksFileError(`it is not YAML (${message.replace(/:$/, '')})`);
  }
  return tasksOfData(data);
}

/**
 * Checks the tasks as a whole: ids are unique, every `after` names another task, and no task comes (through others)
 * after itself. Returns the tasks unchanged.
 */
export function checkTaskOrder(tasks: BatchTask[]): BatchTask[] {
  const byId = new Map<string, BatchTask>();
  for (const task of tasks) {
    if (byId.has(task.id)) throw new TasksFileError(`two tasks have the id "${task.id}"`);
    byId.set(task.id, task);
  }
  for (const task of tasks)
    for (const before of task.after) {
      if (before === task.id) throw new TasksFileError(`task "${task.id}" comes after itself`);
      if (!byId.has(before))
        throw new TasksFileError(`task "${task.id}" comes after "${before}", which no task is`);
    }
  // Depth-first walk; a task met again while still on the path closes a cycle.
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (id: string): void => {
    if (done.has(id)) return;
    const at = path.indexOf(id);
    if (at >= 0)
      throw new TasksFileError(
        `tasks come after each other in a cycle: ${[...path.slice(at), id].join(' → ')}`,
      );
    path.push(id);
    for (const before of (byId.get(id) as BatchTask).after) visit(before);
    path.pop();
    done.add(id);
  };
  for (const task of tasks) visit(task.id);
  return tasks;
}

/** A tasks file YAML is read from: its name ends in `.yaml` or `.yml`. */
const isYamlName = (name: string): boolean => /\.ya?ml$/i.test(name);

/**
 * The tasks of a tasks file's text, by its name: JSON for `.json`, YAML for `.yaml`/`.yml`, else a Markdown
 * checklist; checked as a whole (unique ids, known `after`s, no cycle).
 */
export async function parseTasksFile(name: string, text: string): Promise<BatchTask[]> {
  if (isYamlName(name)) return checkTaskOrder(await parseTasksYaml(text));
  const tasks = name.toLowerCase().endsWith('.json') ? parseTasksJson(text) : parseChecklist(text);
  return checkTaskOrder(tasks);
}

/** True when `id` passes the id rule of a tasks file's task (so it names a branch and a folder of a batch). */
export const isTaskId = (id: unknown): id is string => taskSchema.shape.id.safeParse(id).success;
