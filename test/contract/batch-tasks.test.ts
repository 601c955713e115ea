import { describe, expect, test } from 'vitest';
import { parseTasksFile, TasksFileError } from '../../src/contract/batch-tasks.js';

describe('a Markdown checklist', () => {
  test('each open box is a task, its nested lines are its detail, a ticked box keeps its number', () => {
    const text = [
      '# Plan',
      '- [ ] Add a greeting to hello.txt',
      '  Say hello in English.',
      '  - keep it one line',
      '- [x] Already done',
      '* [ ] Add a farewell to bye.txt',
      '',
      'Notes after the list are no task detail.',
    ].join('\n');
    expect(parseTasksFile('TASKS.md', text)).toEqual([
      {
        id: 'task-1',
        objective: 'Add a greeting to hello.txt\nSay hello in English.\n- keep it one line',
        after: [],
      },
      { id: 'task-3', objective: 'Add a farewell to bye.txt', after: [] },
    ]);
  });

  test('detail lines keep their own nesting, whatever their indent', () => {
    const text = ['- [ ] Port the parser', '      Keep the API.', '        - one', '      Done.'].join('\n');
    expect(parseTasksFile('TASKS.md', text)[0]?.objective).toBe(
      'Port the parser\nKeep the API.\n  - one\nDone.',
    );
  });

  test('a checklist with no open box is refused', () => {
    expect(() => parseTasksFile('TASKS.md', '- [x] done\n')).toThrow(TasksFileError);
    expect(() => parseTasksFile('TASKS.md', 'just prose\n')).toThrow(/lists no open task/);
  });
});

describe('a JSON tasks file', () => {
  test('an array or { tasks } of tasks with id, objective and the optional after, agent, verify, maxRounds', () => {
    const tasks = [
      { id: 'a', objective: 'one' },
      { id: 'b', objective: 'two', after: ['a'], agent: 'my-agent --fast', verify: 'npm test', maxRounds: 3 },
    ];
    const expected = [
      { id: 'a', objective: 'one', after: [] },
      { id: 'b', objective: 'two', after: ['a'], agent: 'my-agent --fast', verify: 'npm test', maxRounds: 3 },
    ];
    expect(parseTasksFile('t.json', JSON.stringify(tasks))).toEqual(expected);
    expect(parseTasksFile('t.JSON', JSON.stringify({ tasks }))).toEqual(expected);
  });

  test.each([
    ['not JSON', '{', /is not JSON/],
    ['no task', '[]', /lists no task/],
    ['an empty objective', '[{"id":"a","objective":"  "}]', /objective: must not be empty/],
    ['an id that is no branch name', '[{"id":"../x","objective":"o"}]', /id: must be 1-64/],
    ['an unknown field', '[{"id":"a","objective":"o","cwd":"/"}]', /cwd/],
    ['a round cap above 256', '[{"id":"a","objective":"o","maxRounds":257}]', /maxRounds/],
    [
      'two tasks with one id',
      '[{"id":"a","objective":"o"},{"id":"a","objective":"p"}]',
      /two tasks have the id "a"/,
    ],
    [
      'an after naming no task',
      '[{"id":"a","objective":"o","after":["z"]}]',
      /comes after "z", which no task is/,
    ],
    ['a task after itself', '[{"id":"a","objective":"o","after":["a"]}]', /"a" comes after itself/],
    [
      'a cycle',
      '[{"id":"a","objective":"o","after":["c"]},{"id":"b","objective":"p","after":["a"]},{"id":"c","objective":"q","after":["b"]}]',
      /in a cycle: a → c → b → a/,
    ],
  ])('%s is refused with a message saying why', (_name, text, message) => {
    expect(() => parseTasksFile('tasks.json', text)).toThrow(TasksFileError);
    expect(() => parseTasksFile('tasks.json', text)).toThrow(message);
  });
});

test('a YAML tasks file is refused with a message saying to write it as JSON', () => {
  expect(() => parseTasksFile('tasks.yaml', '- id: a\n')).toThrow(/YAML tasks files are not read yet/);
});
