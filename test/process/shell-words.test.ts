import { describe, expect, it } from 'vitest';
import { splitShellWords } from '../../src/process/shell-words.js';

const env: Record<string, string> = { HOME: '/home/me' };
const split = (line: string) => splitShellWords(line, (name) => env[name]);

describe('one parser splits a command line into argv by shell-word rules, without a shell', () => {
  it('quotes and backslashes group words; a known $NAME is its value; a lone $ is a dollar sign', () => {
    expect(split(`node "my agent.mjs" it\\'s $HOME $`)).toEqual({
      argv: ['node', 'my agent.mjs', "it's", '/home/me', '$'],
    });
  });

  it('says what only a shell could run: the first unknown variable, a comment, a glob, an operator', () => {
    expect(split('run $NOPE $ALSO_NOPE')).toEqual({ problem: { kind: 'variable', name: 'NOPE' } });
    expect(split('run # note')).toEqual({ problem: { kind: 'comment' } });
    expect(split('run *.ts')).toEqual({ problem: { kind: 'glob', pattern: '*.ts' } });
    expect(split('npm test && npm run lint')).toEqual({ problem: { kind: 'operator', op: '&&' } });
  });

  it('says when the line names no program', () => {
    expect(split('')).toEqual({ problem: { kind: 'no-program' } });
    expect(split('"" arg')).toEqual({ problem: { kind: 'no-program' } });
  });
});
