// The careful reviewer of the corpus: checks a workspace against its objective the way a reviewer who does not
// take the worker's word would, and returns a verdict of the evaluator schema. Read-only throughout: git runs with
// --no-optional-locks (no index refresh written back), `node --test` and the calls of the workspace's functions
// write nothing. Synchronous, so that a scripted model server can answer with it from inside a request.
//
// What it understands of an objective is the corpus's form: an item naming a file, a function and an example call
// ("`src/slug.js` exports `slugify`: `slugify('Hello World')` returns `'hello-world'`"), in the objective or in a
// markdown checklist the objective names; the files the objective names; the project's tests. It is a careful
// reviewer of these objectives, not a general one.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** An item of an objective: `file` exports `name`, and `call` returns `expected` (both JavaScript expressions). */
const ITEM = /`([\w./-]+\.m?js)` exports `([A-Za-z_$][\w$]*)`: `([^`]+)` returns `([^`]+)`/;
/** A backticked path the objective names (a file with an extension; commands and calls have spaces or parens). */
const NAMED_PATH = /`([\w.-]+(?:\/[\w.-]+)*\.[a-z]{1,4})`/g;
/** A test file, by the patterns `node --test` runs. */
const TEST_FILE = /(^|\/)test\/.*\.m?js$|\.test\.m?js$/;
/** A test case declared with node:test (or the `it` of describe). */
const TEST_CASE = /\b(?:test|it)\s*\(/g;
/** A test skipped or left to do. */
const SKIPPED = /\.(?:skip|todo)\s*\(|\{\s*(?:skip|todo)\s*:/g;
/** What a reviewer reads as unfinished code. */
const UNFINISHED = /\bTODO\b|\bFIXME\b|not implemented/i;
const CHECK_TIMEOUT_MS = 60_000;

function run(workspace, argv) {
  const env = { ...process.env, GIT_OPTIONAL_LOCKS: '0' };
  delete env.NODE_TEST_CONTEXT;
  return spawnSync(argv[0], argv.slice(1), {
    cwd: workspace,
    env,
    encoding: 'utf8',
    timeout: CHECK_TIMEOUT_MS,
    maxBuffer: 1 << 24,
  });
}

/** `git …` in the workspace, read-only; its stdout, or undefined when git failed (not a repository, no HEAD). */
function git(workspace, ...args) {
  const out = run(workspace, ['git', '--no-optional-locks', ...args]);
  return out.status === 0 ? out.stdout : undefined;
}

const lines = (text) => text.split('\n').filter((line) => line !== '');
const count = (text, pattern) => (text.match(pattern) ?? []).length;

/** The objective and the markdown files it names (its checklists), as they are in the workspace now. */
function sourcesOf(workspace, objective) {
  const named = [...objective.matchAll(NAMED_PATH)].map((m) => m[1]);
  const checklists = named
    .filter((path) => path.endsWith('.md') && existsSync(join(workspace, path)))
    .map((path) => ({ path, text: readFileSync(join(workspace, path), 'utf8') }));
  return { named, checklists };
}

/** Each item of the objective and of its checklists; an unticked checklist item is a finding. */
function itemsOf(objective, checklists, verdict) {
  const items = [];
  for (const source of [{ path: 'the objective', text: objective }, ...checklists]) {
    for (const line of source.text.split('\n')) {
      const m = ITEM.exec(line);
      if (m === null) continue;
      items.push({ file: m[1], name: m[2], call: m[3], expected: m[4] });
      if (/^\s*- \[ \]/.test(line)) verdict.finding(`${source.path}: an item is not ticked: ${line.trim()}`);
    }
  }
  return items;
}

/** The source a child node runs to call each item's function: one JSON line of outcomes. */
const CALLER = `
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual, inspect } from 'node:util';
const items = JSON.parse(process.argv[1]);
const outcomes = [];
for (const item of items) {
  try {
    const module = await import(pathToFileURL(item.file).href);
    const fn = module[item.name];
    if (typeof fn !== 'function') { outcomes.push({ kind: 'not-exported' }); continue; }
    const got = await new Function(item.name, 'return (' + item.call + ');')(fn);
    const expected = new Function('return (' + item.expected + ');')();
    outcomes.push({ kind: isDeepStrictEqual(got, expected) ? 'ok' : 'wrong', got: inspect(got) });
  } catch (error) {
    outcomes.push({ kind: 'threw', message: String(error?.message ?? error) });
  }
}
console.log(JSON.stringify(outcomes));
`;

/** Calls each item's function with the objective's example, in a child node, and compares with what it says. */
function checkItems(workspace, items, verdict) {
  const present = items.filter((item) => {
    if (existsSync(join(workspace, item.file))) return true;
    verdict.finding(`\`${item.file}\` does not exist, so \`${item.name}\` is not written`);
    return false;
  });
  if (present.length === 0) return;
  const out = run(workspace, [
    process.execPath,
    '--input-type=module',
    '-e',
    CALLER,
    JSON.stringify(present),
  ]);
  const outcomes = out.status === 0 ? JSON.parse(lines(out.stdout).at(-1)) : [];
  present.forEach((item, i) => {
    const outcome = outcomes[i] ?? { kind: 'threw', message: out.stderr.trim() || 'the call did not finish' };
    const call = `\`${item.call}\``;
    if (outcome.kind === 'ok') verdict.evidence(`${call} returned ${item.expected}, as the objective says`);
    else if (outcome.kind === 'not-exported')
      verdict.finding(`\`${item.file}\` does not export a function \`${item.name}\``);
    else if (outcome.kind === 'wrong')
      verdict.finding(`${call} returned ${outcome.got}; the objective says ${item.expected}`);
    else verdict.finding(`${call} threw: ${outcome.message.split('\n')[0]}`);
  });
}

/** Every path the objective names exists. */
function checkNamedFiles(workspace, named, verdict) {
  for (const path of new Set(named)) {
    if (!existsSync(join(workspace, path)))
      verdict.finding(`\`${path}\`, which the objective names, does not exist`);
  }
}

/** The project's tests pass (`node --test`), when it has any. */
function checkTests(workspace, verdict) {
  const files = lines(git(workspace, 'ls-files', '--cached', '--others', '--exclude-standard') ?? '');
  const tests = files.filter((path) => TEST_FILE.test(path) && existsSync(join(workspace, path)));
  if (tests.length === 0) return;
  const out = run(workspace, [process.execPath, '--test']);
  const summary = (name) => out.stdout.match(new RegExp(`^# ${name} (\\d+)$`, 'm'))?.[1] ?? '?';
  if (out.status === 0)
    verdict.evidence(`node --test passed: ${summary('pass')} of ${summary('tests')} tests`);
  else {
    const failing = [...out.stdout.matchAll(/^not ok \d+ - (.*)$/gm)].map((m) => m[1]);
    verdict.finding(
      `node --test fails${failing.length > 0 ? `: ${failing.join('; ')}` : ` (exit ${out.status ?? out.signal})`}`,
    );
  }
}

/** No test of the committed seed was deleted, removed from its file or newly skipped. */
function checkTestsKept(workspace, verdict) {
  const committed = git(workspace, 'ls-tree', '-r', '--name-only', 'HEAD');
  if (committed === undefined) return;
  const tests = lines(committed).filter((path) => TEST_FILE.test(path));
  let kept = true;
  for (const path of tests) {
    const before = git(workspace, 'show', `HEAD:${path}`) ?? '';
    if (!existsSync(join(workspace, path))) {
      verdict.finding(`the test file \`${path}\` was deleted (it is in the committed seed)`);
      kept = false;
      continue;
    }
    const now = readFileSync(join(workspace, path), 'utf8');
    if (count(now, TEST_CASE) < count(before, TEST_CASE)) {
      verdict.finding(
        `\`${path}\` has ${count(now, TEST_CASE)} tests where the commit had ${count(before, TEST_CASE)}: tests were removed`,
      );
      kept = false;
    }
    if (count(now, SKIPPED) > count(before, SKIPPED)) {
      verdict.finding(`\`${path}\` skips tests that the commit ran`);
      kept = false;
    }
  }
  if (tests.length > 0 && kept)
    verdict.evidence(`every test of the commit is still there and not skipped (${tests.join(', ')})`);
}

/** No source file the worker changed or added still says it is unfinished. */
function checkUnfinished(workspace, verdict) {
  const changed = [
    ...lines(git(workspace, 'diff', '--name-only', 'HEAD') ?? ''),
    ...lines(git(workspace, 'ls-files', '--others', '--exclude-standard') ?? ''),
  ];
  for (const path of new Set(changed)) {
    if (!/\.m?js$/.test(path) || !existsSync(join(workspace, path))) continue;
    const text = readFileSync(join(workspace, path), 'utf8').split('\n');
    const at = text.findIndex((line) => UNFINISHED.test(line));
    if (at >= 0) verdict.finding(`\`${path}\` line ${at + 1} says it is unfinished: ${text[at].trim()}`);
  }
}

/**
 * Reviews the workspace against the objective: `{ verdict, findings, evidence }`, a reject with every finding when
 * there is one, an accept with the evidence otherwise (and a reject when nothing in the objective could be checked).
 */
export function review(workspace, objective) {
  const findings = [];
  const evidence = [];
  const verdict = { finding: (text) => findings.push(text), evidence: (text) => evidence.push(text) };
  const { named, checklists } = sourcesOf(workspace, objective);
  checkNamedFiles(workspace, named, verdict);
  checkItems(workspace, itemsOf(objective, checklists, verdict), verdict);
  checkTests(workspace, verdict);
  checkTestsKept(workspace, verdict);
  checkUnfinished(workspace, verdict);
  if (findings.length > 0) return { verdict: 'reject', findings, evidence };
  if (evidence.length === 0)
    return { verdict: 'reject', findings: ['nothing in the objective could be checked'], evidence };
  return { verdict: 'accept', findings, evidence };
}

/** The objective inside an evaluator's prompt (renderEvaluatorPrompt's), or undefined when it is not one. */
export function objectiveOfPrompt(prompt) {
  const m = /\nObjective \(immutable\):\n([\s\S]*?)\n\nThe worker's report/.exec(prompt);
  return m?.[1];
}
