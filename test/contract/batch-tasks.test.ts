import { describe, expect, test } from 'vitest';
import { parseTasksFile, TasksFileError, tasksOfData } from '../../src/contract/batch-tasks.js';

/** The refusal parseTasksFile gives for `text` read as the file `name`, or a failure when it reads it. */
async function refusalOf(name: string, text: string): Promise<TasksFileError> {
  const error = await parseTasksFile(name, text).then(
    () => new Error(`${name} was read`),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TasksFileError);
  return error as TasksFileError;
}

describe('a Markdown checklist', () => {
  test('each open box is a task, its nested lines are its detail, a ticked box keeps its number', async () => {
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
    expect(await parseTasksFile('TASKS.md', text)).toEqual([
      {
        id: 'task-1',
        objective: 'Add a greeting to hello.txt\nSay hello in English.\n- keep it one line',
        after: [],
      },
      { id: 'task-3', objective: 'Add a farewell to bye.txt', after: [] },
    ]);
  });

  test('detail lines keep their own nesting, whatever their indent', async () => {
    const text = ['- [ ] Port the parser', '      Keep the API.', '        - one', '      Done.'].join('\n');
    expect((await parseTasksFile('TASKS.md', text))[0]?.objective).toBe(
      'Port the parser\nKeep the API.\n  - one\nDone.',
    );
  });

  test('a box indented deeper than its task, ticked or not, is part of its detail', async () => {
    const text = [
      '- [ ] Ship the release',
      '  - [ ] tag it',
      '  - [x] write the notes',
      '- [ ] Announce it',
    ].join('\n');
    expect(await parseTasksFile('TASKS.md', text)).toEqual([
      { id: 'task-1', objective: 'Ship the release\n- [ ] tag it\n- [x] write the notes', after: [] },
      { id: 'task-2', objective: 'Announce it', after: [] },
    ]);
  });

  test('a list indented as a whole is read as the same list', async () => {
    const text = ['Plan:', '  - [ ] Add a greeting', '    in English', '  + [ ] Add a farewell'].join('\n');
    expect(await parseTasksFile('TASKS.md', text)).toEqual([
      { id: 'task-1', objective: 'Add a greeting\nin English', after: [] },
      { id: 'task-2', objective: 'Add a farewell', after: [] },
    ]);
  });

  test('a box followed by more than one space is a box too', async () => {
    expect(await parseTasksFile('TASKS.md', '-   [ ]   Add a greeting  ')).toEqual([
      { id: 'task-1', objective: 'Add a greeting', after: [] },
    ]);
  });

  test('an objective and its detail lose the white space they end with', async () => {
    const text = ['- [ ] Add a greeting   ', '  Say hello.  \t', '- [ ] Add a farewell\t'].join('\n');
    expect(await parseTasksFile('TASKS.md', text)).toEqual([
      { id: 'task-1', objective: 'Add a greeting\nSay hello.', after: [] },
      { id: 'task-2', objective: 'Add a farewell', after: [] },
    ]);
  });

  test('a blank or white-space line inside a detail keeps the detail going', async () => {
    const text = ['- [ ] Port the parser', '  Keep the API.', '', '   ', '  Then the docs.'].join('\n');
    expect((await parseTasksFile('TASKS.md', text))[0]?.objective).toBe(
      'Port the parser\nKeep the API.\nThen the docs.',
    );
  });

  test('a top-level line ends the detail: indented lines after it are no part of the task', async () => {
    const text = ['- [ ] Port the parser', '  Keep the API.', 'Notes:', '  not for the agent'].join('\n');
    expect(await parseTasksFile('TASKS.md', text)).toEqual([
      { id: 'task-1', objective: 'Port the parser\nKeep the API.', after: [] },
    ]);
  });

  test('indented lines before the first box, and a box in the middle of a line, are no task', async () => {
    const text = ['  An indented intro', 'Prose that mentions - [ ] a box', '- [ ] The only task'].join('\n');
    expect(await parseTasksFile('TASKS.md', text)).toEqual([
      { id: 'task-1', objective: 'The only task', after: [] },
    ]);
  });

  test('an open box with no objective is refused, naming its number and its line', async () => {
    const error = await refusalOf('TASKS.md', '- [x] done\n  - [ ]   \t');
    expect(error.message).toBe('task 2 (line "- [ ]") has no objective');
    expect(error.name).toBe('TasksFileError');
  });

  test('a task with 300,000 detail lines keeps them all (no call gets one argument per line)', async () => {
    const text = `- [ ] Port the parser\n${'   detail\n'.repeat(300_000)}`;
    const [task] = await parseTasksFile('TASKS.md', text);
    expect(task?.objective).toBe(`Port the parser\n${Array(300_000).fill('detail').join('\n')}`);
  });

  test('a checklist with no open box is refused', async () => {
    await expect(parseTasksFile('TASKS.md', '- [x] done\n')).rejects.toThrow(TasksFileError);
    await expect(parseTasksFile('TASKS.md', 'just prose\n')).rejects.toThrow(/lists no open task/);
  });
});

describe('a JSON tasks file', () => {
  test('an array or { tasks } of tasks with id, objective and the optional after, agent, verify, maxRounds', async () => {
    const tasks = [
      { id: 'a', objective: 'one' },
      { id: 'b', objective: 'two', after: ['a'], agent: 'my-agent --fast', verify: 'npm test', maxRounds: 3 },
    ];
    const expected = [
      { id: 'a', objective: 'one', after: [] },
      { id: 'b', objective: 'two', after: ['a'], agent: 'my-agent --fast', verify: 'npm test', maxRounds: 3 },
    ];
    expect(await parseTasksFile('t.json', JSON.stringify(tasks))).toEqual(expected);
    expect(await parseTasksFile('t.JSON', JSON.stringify({ tasks }))).toEqual(expected);
  });

  test.each([
    ['not JSON', '{', /is not JSON/],
    ['no task', '[]', /lists no task/],
    ['an empty objective', '[{"id":"a","objective":"  "}]', /objective: must not be empty/],
    ['an id that is no branch name', '[{"id":"../x","objective":"o"}]', /id: must be 1-64/],
    ['an id with a slash', '[{"id":"feature/x","objective":"o"}]', /^0\.id: must be 1-64/],
    ['an id with a capital', '[{"id":"taskA","objective":"o"}]', /^0\.id: must be 1-64/],
    ['an id of 65 characters', `[{"id":"${'a'.repeat(65)}","objective":"o"}]`, /^0\.id: must be 1-64/],
    [
      'an id with ".." in it, which git refuses in a branch name',
      '[{"id":"a..b","objective":"o"}]',
      /^0\.id: "a\.\.b" cannot name a git branch: it contains "\.\.", which git refuses in a branch name$/,
    ],
    [
      'an id ending in ".lock"',
      '[{"id":"ok","objective":"o"},{"id":"x.lock","objective":"o"}]',
      /^1\.id: "x\.lock" cannot name a git branch: it ends with "\.lock", which git refuses in a branch name$/,
    ],
    [
      'an id ending in "."',
      '{"tasks":[{"id":"a.","objective":"o"}]}',
      /^tasks\.0\.id: "a\." cannot name a git branch: it ends with "\.", which git refuses in a branch name$/,
    ],
    [
      'an objective with a NUL character',
      '[{"id":"a","objective":"o\\u0000"}]',
      /^0\.objective: must not contain a NUL character$/,
    ],
    ['an id that is a number', '[{"id":1,"objective":"o"}]', /^0\.id: .*expected string/],
    ['a tasks object with another field', '{"tasks":[{"id":"a","objective":"o"}],"x":1}', /"x"/],
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
    [
      'a cycle further down',
      '[{"id":"a","objective":"o","after":["b"]},{"id":"b","objective":"p","after":["c"]},{"id":"c","objective":"q","after":["b"]}]',
      /in a cycle: b → c → b$/,
    ],
  ])('%s is refused with a message saying why', async (_name, text, message) => {
    await expect(parseTasksFile('tasks.json', text)).rejects.toThrow(TasksFileError);
    await expect(parseTasksFile('tasks.json', text)).rejects.toThrow(message);
  });
});

describe('a YAML tasks file', () => {
  const yaml = [
    'tasks:',
    '  - id: a',
    '    objective: one',
    '  - id: b',
    '    objective: |',
    '      two',
    '      with detail',
    '    after: [a]',
    '    agent: my-agent --fast',
    '    verify: npm test',
    '    maxRounds: 3',
  ].join('\n');
  const expected = [
    { id: 'a', objective: 'one', after: [] },
    {
      id: 'b',
      objective: 'two\nwith detail\n',
      after: ['a'],
      agent: 'my-agent --fast',
      verify: 'npm test',
      maxRounds: 3,
    },
  ];

  test('has the fields of JSON, as a list or a tasks mapping, in a .yaml or .yml file', async () => {
    expect(await parseTasksFile('tasks.yaml', yaml)).toEqual(expected);
    const list = yaml.replace(/^tasks:\n/, '').replace(/^ {2}/gm, '');
    expect(await parseTasksFile('T.YML', list)).toEqual(expected);
  });

  test.each([
    ['not YAML', 'tasks: [', /is not YAML \(Flow sequence .* at line 1, column 9\)$/],
    ['a repeated key', '- id: a\n  objective: o\n  objective: p\n', /is not YAML/],
    ['no task', 'tasks: []\n', /lists no task/],
    ['an empty file', '', /it is empty: it lists no task/],
    ['an id that is a number', '- id: 1\n  objective: o\n', /^0\.id: .*expected string/],
    ['an unknown field', '- id: a\n  objective: o\n  cwd: /\n', /cwd/],
    ['a round cap above 256', '- id: a\n  objective: o\n  maxRounds: 257\n', /maxRounds/],
    [
      'an id git refuses in a branch name',
      '- id: x.lock\n  objective: o\n',
      /^0\.id: "x\.lock" cannot name a git branch: it ends with "\.lock"/,
    ],
    [
      'two tasks with one id',
      '- {id: a, objective: o}\n- {id: a, objective: p}\n',
      /two tasks have the id "a"/,
    ],
    ['an after naming no task', '- {id: a, objective: o, after: [z]}\n', /comes after "z", which no task is/],
    [
      'a cycle',
      '- {id: a, objective: o, after: [c]}\n- {id: b, objective: p, after: [a]}\n- {id: c, objective: q, after: [b]}\n',
      /in a cycle: a → c → b → a/,
    ],
  ])('%s is refused as in JSON', async (_name, text, message) => {
    await expect(parseTasksFile('tasks.yaml', text)).rejects.toThrow(TasksFileError);
    await expect(parseTasksFile('tasks.yml', text)).rejects.toThrow(message);
  });

  test('a file whose name only has .yaml in it is a checklist', async () => {
    expect(await parseTasksFile('tasks.yaml.md', '- [ ] Add a greeting')).toEqual([
      { id: 'task-1', objective: 'Add a greeting', after: [] },
    ]);
  });

  test("the refusal of a file that is not YAML keeps the parser's first line whole, less its closing colon", async () => {
    expect((await refusalOf('tasks.yaml', '- objective: |x\n    text\n')).message).toMatch(
      /^it is not YAML \(Block scalar header includes extra characters: \|x at line 1, column 15\)$/,
    );
  });

  test('a YAML date or other non-JSON type is no string', async () => {
    // The core schema reads `2026-12-01` as a string, so an id like it is taken as it is written.
    expect(await parseTasksFile('t.yaml', '- {id: 2026-12-01, objective: o}\n')).toEqual([
      { id: '2026-12-01', objective: 'o', after: [] },
    ]);
  });
});

describe('the tasks of data', () => {
  test('no data at all is an empty file', () => {
    for (const data of [null, undefined])
      expect(() => tasksOfData(data)).toThrow(new TasksFileError('it is empty: it lists no task'));
  });
});

describe('the order of the tasks', () => {
  test('a web of tasks each after many others is walked once per task', async () => {
    // 40 layers of two tasks, each after both of the layer before: 2^40 paths, 80 tasks.
    const tasks = Array.from({ length: 80 }, (_, i) => ({
      id: `t${i}`,
      objective: `step ${i}`,
      after: i < 2 ? [] : [`t${i - 2 - (i % 2)}`, `t${i - 1 - (i % 2)}`],
    }));
    expect(await parseTasksFile('tasks.json', JSON.stringify(tasks))).toHaveLength(80);
  });
});
