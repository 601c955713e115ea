import { parse } from 'shell-quote';

/** What makes a command line more than a program and its arguments, or less. */
export type ShellWordsProblem =
  /** A `$NAME` the caller does not expand (the first one). */
  | { kind: 'variable'; name: string }
  /** A `#` comment. */
  | { kind: 'comment' }
  /** An unquoted glob such as `*.ts`. */
  | { kind: 'glob'; pattern: string }
  /** A shell operator: `&&`, `|`, `;`, `>`, … */
  | { kind: 'operator'; op: string }
  /** Nothing, or an empty first word. */
  | { kind: 'no-program' };

/** A command line split into argv, or the first thing in it that only a shell could run. */
export type ShellWords = { argv: string[] } | { problem: ShellWordsProblem };

/**
 * Splits a command line into argv by POSIX shell-word rules (quotes, backslashes), without a shell: the project's
 * one parser of a command line, for `--agent-command` and `--verify` alike. `variable` gives the value of a `$NAME`,
 * or undefined where it has none (then the line has a `variable` problem; a lone `$` is a literal dollar sign, as in
 * a shell). Each caller words its own refusal of a problem.
 */
export function splitShellWords(line: string, variable: (name: string) => string | undefined): ShellWords {
  let unset: string | undefined;
  const entries = parse(line, (name: string) => {
    if (name === '') return '$';
    const value = variable(name);
    if (value === undefined) unset ??= name;
    return value ?? '';
  });
  if (unset !== undefined) return { problem: { kind: 'variable', name: unset } };
  const argv: string[] = [];
  for (const entry of entries) {
    if (typeof entry === 'string') argv.push(entry);
    else if ('comment' in entry) return { problem: { kind: 'comment' } };
    else if (entry.op === 'glob') return { problem: { kind: 'glob', pattern: entry.pattern } };
    else return { problem: { kind: 'operator', op: entry.op } };
  }
  if (argv.length === 0 || argv[0] === '') return { problem: { kind: 'no-program' } };
  return { argv };
}
