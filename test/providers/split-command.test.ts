import { describe, expect, it } from 'vitest';
import { RalphError, splitCommand } from '../../src/index.js';

const env = { HOME: '/home/me', AGENT: 'my agent.mjs' };

describe('a command given as one string is split into argv by POSIX shell-word rules', () => {
  it.each([
    ['node agent.mjs --fast', ['node', 'agent.mjs', '--fast']],
    [`node "my agent.mjs" 'it''s' a\\ b`, ['node', 'my agent.mjs', 'its', 'a b']],
    ['claude -p --json-schema \'{"type":"object"}\'', ['claude', '-p', '--json-schema', '{"type":"object"}']],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell variable, not a template
    ['node $HOME/agent.mjs "${AGENT}"', ['node', '/home/me/agent.mjs', 'my agent.mjs']],
    ["node '$HOME' \\$HOME", ['node', '$HOME', '$HOME']],
    ['  node   a.mjs  ', ['node', 'a.mjs']],
    ['node "" x', ['node', '', 'x']],
  ])('%s', (command, argv) => {
    expect(splitCommand(command, env)).toEqual(argv);
  });
});

describe('anything only a shell could do is refused, with the reason', () => {
  it.each([
    [
      'node a.mjs | tee log',
      'it contains the shell operator |; it is not run by a shell, so quote it or drop it',
    ],
    [
      'node a.mjs && echo done',
      'it contains the shell operator &&; it is not run by a shell, so quote it or drop it',
    ],
    [
      'node a.mjs > out.txt',
      'it contains the shell operator >; it is not run by a shell, so quote it or drop it',
    ],
    [
      'node a.mjs; rm -rf x',
      'it contains the shell operator ;; it is not run by a shell, so quote it or drop it',
    ],
    ['node *.mjs', 'it contains the glob *.mjs; it is not run by a shell, so quote it or expand it first'],
    ['node a.mjs # note', 'it contains a comment (#); quote the # if it is part of an argument'],
    ['node $NOT_SET/a.mjs', 'environment variable $NOT_SET is not set'],
    ['', 'it names no program'],
    ['   ', 'it names no program'],
  ])('%s', (command, problem) => {
    let thrown: unknown;
    try {
      splitCommand(command, env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RalphError);
    expect((thrown as RalphError).code).toBe('refused');
    expect((thrown as RalphError).message).toBe(
      `Ralph agent command ${JSON.stringify(command)} is invalid: ${problem}`,
    );
  });
});
