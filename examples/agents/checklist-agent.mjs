#!/usr/bin/env node
// The example agent: a deterministic worker with no model and no dependencies that follows ralph's command agent
// protocol. Each round it reads the checklist in its workspace (its current folder), takes the first unchecked task,
// does it for real, runs the task's check, ticks the box when the check passes, and writes its report to
// RALPH_REPORT_FILE (to stdout when run by hand):
//   continue  - with the next task as the next step (or a retry after a first failed check);
//   complete  - when no task is left, with every task's check, run again, as the evidence;
//   blocked   - when a task's check fails twice, or the checklist cannot be read.
// The checklist is the first Markdown file the objective names (e.g. "Tick every box in CHECKLIST.md"; the
// objective is read from the round prompt on stdin), else TASKS.md.
// Failed checks are counted in .ralph/attempts.json in the workspace, the only memory rounds share besides
// the checklist itself. One line on stderr says what the round did.
// With --read-only (a child that must not change the workspace, e.g. an evaluator) it writes nothing there: it does
// no task, ticks no box and counts no attempt, and reports what it found: complete when every task is ticked and
// every check passes, else the first task not done as the next step.
//
// A task is one line of the checklist, starting at the beginning of the line:
//   - [ ] Create `<path>` containing "<text>" — check: `<command>`
//   - [ ] Run `<command>` — check: `<command>`
// <text> is a JSON string ("\n" is a newline); <path> stays inside the workspace. A command is split into words
// like a shell would (quotes group words, a backslash escapes) but never run by a shell; a leading `node` is this
// Node binary. `--` may stand for the dash before `check:`. A check passes when it exits 0. Done tasks read `- [x]`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';

const DEFAULT_TASKS_FILE = 'TASKS.md';
const ATTEMPTS_FILE = join('.ralph', 'attempts.json');
const MAX_FAILED_CHECKS = 2;
const COMMAND_TIMEOUT_MS = 60_000;

const TASK_LINE = /^- \[( |x|X)\] (.+)$/;
const TASK_BODY = /^(?<action>.+?)\s+(?:—|--)\s+check:\s+`(?<check>[^`]+)`\s*$/;
const CREATE = /^Create `(?<path>[^`]+)` containing (?<text>".*")$/;
const RUN = /^Run `(?<command>[^`]+)`$/;

const workspace = process.cwd();
const readOnly = process.argv.includes('--read-only');

/** The objective in the round prompt on stdin (empty when run by hand at a terminal, or with no prompt). */
function objectiveOfPrompt() {
  if (process.stdin.isTTY) return '';
  let prompt;
  try {
    prompt = readFileSync(0, 'utf8');
  } catch {
    return '';
  }
  const match = /^Objective \(immutable\):\n([\s\S]*?)\n\nThe shared workspace/m.exec(prompt);
  return match ? match[1] : '';
}

/** The checklist: the first Markdown file the objective names (`CHECKLIST.md`, `docs/todo.md`), else TASKS.md. */
const TASKS_FILE = /[\w./-]*\w\.md\b/.exec(objectiveOfPrompt())?.[0] ?? DEFAULT_TASKS_FILE;
/** What the one-line stderr summary names: the task this round worked on. */
let worked = 'no task';
const round = Number(process.env.RALPH_ROUND ?? '1');
const maxRounds = Number(process.env.RALPH_MAX_ROUNDS ?? '1');

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Splits a command into words: whitespace separates, quotes group, a backslash escapes (not in single quotes). */
function splitWords(command) {
  const words = [];
  let word = '';
  let inWord = false;
  let quote = null;
  for (let i = 0; i < command.length; i += 1) {
    const char = command[i];
    if (quote === "'") {
      if (char === "'") quote = null;
      else word += char;
    } else if (char === '\\' && i + 1 < command.length) {
      i += 1;
      word += command[i];
      inWord = true;
    } else if (quote === '"') {
      if (char === '"') quote = null;
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote !== null) throw new Error(`unclosed ${quote} in \`${command}\``);
  if (inWord) words.push(word);
  if (words.length === 0) throw new Error('empty command');
  return words;
}

/** Runs a command in the workspace, without a shell; never throws. */
function run(command) {
  let argv;
  try {
    argv = splitWords(command);
  } catch (error) {
    return { ok: false, said: error.message };
  }
  const [program, ...args] = argv;
  const result = spawnSync(program === 'node' ? process.execPath : program, args, {
    cwd: workspace,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: COMMAND_TIMEOUT_MS,
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-3).join(' / ');
  if (result.error) return { ok: false, said: `could not run it: ${result.error.message}` };
  if (result.signal) return { ok: false, said: `killed by ${result.signal}${output ? `: ${output}` : ''}` };
  const status = `exit ${result.status}`;
  return { ok: result.status === 0, said: output ? `${status}: ${output}` : status };
}

/** A path inside the workspace, or an error for one that would leave it. */
function insideWorkspace(path) {
  const target = resolve(workspace, path);
  const rel = relative(workspace, target);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel))
    throw new Error(`${path} is outside the workspace`);
  return target;
}

/** Does a task's action; returns what happened. */
function perform(action) {
  const create = CREATE.exec(action);
  if (create) {
    const text = JSON.parse(create.groups.text);
    const target = insideWorkspace(create.groups.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    return { ok: true, said: `wrote ${plural(Buffer.byteLength(text), 'byte')} to ${create.groups.path}` };
  }
  const runTask = RUN.exec(action);
  if (runTask) {
    const result = run(runTask.groups.command);
    return { ok: result.ok, said: `ran it (${result.said})` };
  }
  throw new Error(
    `cannot tell what to do: "${action}" is neither Create \`<path>\` containing "<text>" nor Run \`<command>\``,
  );
}

function readTasks() {
  let text;
  try {
    text = readFileSync(insideWorkspace(TASKS_FILE), 'utf8');
  } catch {
    return { error: `there is no readable ${TASKS_FILE} in the workspace ${workspace}` };
  }
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  const tasks = [];
  lines.forEach((line, index) => {
    const match = TASK_LINE.exec(line);
    if (match) tasks.push({ index, number: tasks.length + 1, done: match[1] !== ' ', body: match[2] });
  });
  if (tasks.length === 0) return { error: `${TASKS_FILE} lists no tasks (lines starting with "- [ ] ")` };
  return { lines, eol, tasks };
}

function readAttempts() {
  try {
    return JSON.parse(readFileSync(join(workspace, ATTEMPTS_FILE), 'utf8'));
  } catch {
    return {};
  }
}

function writeAttempts(attempts) {
  mkdirSync(join(workspace, dirname(ATTEMPTS_FILE)), { recursive: true });
  writeFileSync(join(workspace, ATTEMPTS_FILE), `${JSON.stringify(attempts, null, 2)}\n`);
}

const checkOf = (task) => TASK_BODY.exec(task.body)?.groups.check;

/** "task 2 (create notes/plan.md)": how reports name a task. */
function label(task) {
  const action = TASK_BODY.exec(task.body)?.groups.action ?? task.body;
  const create = CREATE.exec(action);
  const runTask = RUN.exec(action);
  const what = create
    ? `create ${create.groups.path}`
    : runTask
      ? `run \`${runTask.groups.command}\``
      : action;
  return `task ${task.number} (${what})`;
}

/** Every task's check, run again now: the evidence of a complete report. */
function recheckAll(tasks) {
  const evidence = [];
  const failures = [];
  for (const task of tasks) {
    const check = checkOf(task);
    const result = check === undefined ? { ok: false, said: 'it has no check' } : run(check);
    (result.ok ? evidence : failures).push(
      `${label(task)}: check \`${check}\` ${result.ok ? 'passed' : 'failed'} (${result.said})`,
    );
  }
  return { evidence, failures };
}

const blocked = (summary, blocker) => ({ status: 'blocked', summary, evidence: [], nextSteps: [], blocker });

function finish(tasks, summary, evidenceBefore) {
  const { evidence, failures } = recheckAll(tasks);
  if (failures.length > 0) {
    return {
      ...blocked(summary, `every task is ticked, but a check fails now: ${failures.join('; ')}`),
      evidence: evidenceBefore,
    };
  }
  return { status: 'complete', summary, evidence, nextSteps: [], blocker: null };
}

/** A read-only round: the task not done yet as the next step, nothing done; the caller already checked there is one. */
function readOnlyRound(task) {
  worked = `${label(task)}, read-only`;
  return {
    status: 'continue',
    summary: `Round ${round}: ${label(task)} is not done yet; read-only, so nothing was changed.`,
    evidence: [],
    nextSteps: [`Do ${label(task)}: ${task.body}`],
    blocker: null,
  };
}

function workRound() {
  const read = readTasks();
  if (read.error) return blocked(`Round ${round}: could not read the task list.`, read.error);
  const { lines, eol, tasks } = read;
  const task = tasks.find((candidate) => !candidate.done);
  if (task === undefined)
    return finish(tasks, `Round ${round}: every task in ${TASKS_FILE} was already done.`, []);
  if (readOnly) return readOnlyRound(task);

  worked = label(task);
  const body = TASK_BODY.exec(task.body);
  if (!body) {
    return blocked(
      `Round ${round}: ${label(task)} cannot be read.`,
      `line ${task.index + 1} of ${TASKS_FILE} has no "— check: \`<command>\`": ${task.body}`,
    );
  }
  let done;
  try {
    done = perform(body.groups.action);
  } catch (error) {
    return blocked(
      `Round ${round}: ${label(task)} cannot be done.`,
      `line ${task.index + 1} of ${TASKS_FILE}: ${error.message}`,
    );
  }
  const check = run(body.groups.check);
  const attempts = readAttempts();
  const key = task.body;

  if (!check.ok) {
    attempts[key] = (attempts[key] ?? 0) + 1;
    writeAttempts(attempts);
    const failed = `check \`${body.groups.check}\` failed (${check.said})`;
    if (attempts[key] >= MAX_FAILED_CHECKS) {
      return blocked(
        `Round ${round}: did ${label(task)} again, ${done.said}, and its check failed again.`,
        `${label(task)}: ${failed} ${attempts[key]} times`,
      );
    }
    return {
      status: 'continue',
      summary: `Round ${round}: did ${label(task)}, ${done.said}, but its ${failed}.`,
      evidence: [],
      nextSteps: [`Retry ${label(task)}: ${task.body} (its ${failed} once)`],
      blocker: null,
    };
  }

  lines[task.index] = lines[task.index].replace(/^- \[ \]/, '- [x]');
  writeFileSync(insideWorkspace(TASKS_FILE), lines.join(eol));
  if (key in attempts) {
    delete attempts[key];
    writeAttempts(attempts);
  }
  const passed = `${label(task)}: check \`${body.groups.check}\` passed (${check.said})`;
  const next = tasks.find((candidate) => !candidate.done && candidate !== task);
  const summary = `Round ${round}: did ${label(task)}, ${done.said}; its check passed, so it is ticked.`;
  if (next === undefined) return finish(tasks, `${summary} No task is left.`, [passed]);
  return {
    status: 'continue',
    summary,
    evidence: [passed],
    nextSteps: [`Do ${label(next)}: ${next.body}`],
    blocker: null,
  };
}

const report = workRound();
const json = `${JSON.stringify(report, null, 2)}\n`;
if (process.env.RALPH_REPORT_FILE) writeFileSync(process.env.RALPH_REPORT_FILE, json);
else process.stdout.write(json);
const outcome =
  report.status === 'complete' ? `complete, ${report.evidence.length} checks pass` : report.status;
process.stderr.write(`checklist-agent round ${round}/${maxRounds}: worked on ${worked}: ${outcome}\n`);
