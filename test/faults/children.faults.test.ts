import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  childFailureMessage,
  handoffSize,
  type RalphReport,
  WORKFLOW_CANCELLED,
  workflowFailed,
} from '../../src/index.js';
import { agentCommand, until, useScratch } from '../support/processes.js';
import {
  agentIn,
  blockedAt,
  completeAt,
  continueAt,
  type Expected,
  expectNothingLeft,
  expectOutcome,
  type FaultToolOptions,
  faultTool,
  settled,
  useOwnTmpdir,
} from './harness.js';

const tmp = useOwnTmpdir();
const s = useScratch();

/** A row: one fault of a child process and exactly how the call ends. */
interface ChildFaultRow extends FaultToolOptions {
  name: string;
  /** Stop the turn once this many processes have logged their pids (the round's child is in place). */
  cancelOnceLogged?: number;
  expect: Expected;
  /** How many processes the fakes logged: one a round started, plus their grandchildren. */
  processes: number;
  /** Parts of the error's detail (what the child said), for the child failures. */
  detailIncludes?: string[];
  /** What an agent that notes its signals noted. */
  signals?: string;
}

const malformed = (round: number, problem: string) =>
  workflowFailed(`round ${round} report is malformed: ${problem}`);
const missing = (round: number) =>
  workflowFailed(`round ${round} child finished without a structured report`);

/** What JSON.parse says about a text, as a malformed report file's message must keep it. */
function parseError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} parses`);
}
const PARTIAL = '{"status":"complete","summary":"all done","evidence":["tests pa';
const GARBAGE = 'lorem {ipsum} "dolor" } { sit [amet] ::: }}} {{{';

/** A report file that is not JSON: the run fails as malformed and says why JSON.parse refused it. */
const unparsable = (round: number, text: string): string =>
  expect.stringMatching(
    new RegExp(
      `^${regexpEscaped(workflowFailed(`round ${round} report is malformed: `))}(?!.*expected object, received string).*${regexpEscaped(parseError(text))}`,
    ),
  );
function regexpEscaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Braces in a JSON string are text, not structure: a scanner must not count them. */
const braceful: RalphReport = {
  ...completeAt(1),
  summary: `printed ${'{'.repeat(600)} and ${'}'.repeat(3)}`,
};

const oversized: RalphReport = { ...completeAt(2), summary: 'x'.repeat(1_200) };

/** A row whose round 2 writes `report`, and which must not start round 3. */
function secondReport(name: string, report: unknown, problem: string): ChildFaultRow {
  return {
    name,
    plan: ['continue', 'report', 'complete'],
    report,
    expect: { code: 'workflow-failed', message: malformed(2, problem), round: 2, lastHandoff: continueAt(1) },
    processes: 2,
  };
}

const { blocker: _dropped, ...withoutBlocker } = completeAt(2);

const rows: ChildFaultRow[] = [
  {
    name: 'three well-behaved rounds: complete in round 3',
    plan: ['continue', 'continue', 'complete'],
    expect: { status: 'complete', rounds: 3, report: completeAt(3) },
    processes: 3,
  },
  {
    name: 'a blocked report ends the run in its round',
    plan: ['continue', 'blocked', 'complete'],
    expect: { status: 'blocked', rounds: 2, report: blockedAt(2) },
    processes: 2,
  },
  {
    name: 'continue at the cap: budget-limited',
    plan: ['continue'],
    config: { maxRounds: 2 },
    expect: { status: 'budget-limited', rounds: 2, report: continueAt(2) },
    processes: 2,
  },
  {
    name: 'a child crash in round 1: no previous handoff',
    plan: ['crash'],
    expect: { code: 'child-failed', message: childFailureMessage(1, null), round: 1, lastHandoff: null },
    processes: 1,
    detailIncludes: ['exited with code 3', 'fatal: the fixture crashed on purpose'],
  },
  {
    name: 'a child crash in round 3: the last successful handoff, no retry',
    plan: ['continue', 'continue', 'crash', 'complete'],
    expect: {
      code: 'child-failed',
      message: childFailureMessage(3, continueAt(2)),
      round: 3,
      lastHandoff: continueAt(2),
    },
    processes: 3,
    detailIncludes: ['exited with code 3', 'fatal: the fixture crashed on purpose'],
  },
  {
    name: 'a child killed by SIGKILL in round 2',
    plan: ['continue', 'sigkill', 'complete'],
    expect: {
      code: 'child-failed',
      message: childFailureMessage(2, continueAt(1)),
      round: 2,
      lastHandoff: continueAt(1),
    },
    processes: 2,
    detailIncludes: ['was killed by SIGKILL', 'about to die by SIGKILL'],
  },
  {
    name: 'a child that hangs in round 2, then the turn is cancelled',
    plan: ['continue', 'hang'],
    cancelOnceLogged: 2,
    expect: { code: 'cancelled', message: WORKFLOW_CANCELLED, round: 2, lastHandoff: continueAt(1) },
    processes: 2,
  },
  {
    name: 'a child that ignores SIGTERM is killed at the grace',
    command: agentCommand('ignore-sigterm.mjs'),
    config: { terminationGraceMs: 200 },
    cancelOnceLogged: 1,
    expect: { code: 'cancelled', message: WORKFLOW_CANCELLED, round: 1, lastHandoff: null },
    processes: 1,
    signals: 'SIGTERM\n',
  },
  {
    name: 'a hanging child whose grandchild ignores SIGTERM: the whole group is gone after cancel',
    plan: ['grandchild'],
    config: { terminationGraceMs: 200 },
    cancelOnceLogged: 2,
    expect: { code: 'cancelled', message: WORKFLOW_CANCELLED, round: 1, lastHandoff: null },
    processes: 2,
  },
  {
    name: 'a node child whose grandchild ignores SIGTERM: the whole group is gone after cancel',
    command: agentCommand('spawn-grandchild.mjs', 'hang', 'ignores-sigterm'),
    config: { terminationGraceMs: 200 },
    cancelOnceLogged: 2,
    expect: { code: 'cancelled', message: WORKFLOW_CANCELLED, round: 1, lastHandoff: null },
    processes: 2,
  },
  {
    name: 'a child that reports and exits leaving a grandchild in its group',
    plan: ['orphan'],
    config: { terminationGraceMs: 200 },
    expect: { status: 'complete', rounds: 1, report: completeAt(1) },
    processes: 2,
  },
  {
    name: 'garbage on stdout and exit 0: a missing report',
    plan: ['continue', 'garbage'],
    expect: { code: 'workflow-failed', message: missing(2), round: 2, lastHandoff: continueAt(1) },
    processes: 2,
  },
  {
    name: 'partial JSON on stdout and exit 0: a missing report',
    plan: ['partial'],
    expect: { code: 'workflow-failed', message: missing(1), round: 1, lastHandoff: null },
    processes: 1,
  },
  {
    name: 'garbage in the report file: malformed, and the parse error is kept',
    plan: ['garbage-file'],
    expect: { code: 'workflow-failed', message: unparsable(1, GARBAGE), round: 1, lastHandoff: null },
    processes: 1,
  },
  {
    name: 'partial JSON in the report file: malformed, and the parse error is kept',
    plan: ['continue', 'partial-file'],
    expect: {
      code: 'workflow-failed',
      message: unparsable(2, PARTIAL),
      round: 2,
      lastHandoff: continueAt(1),
    },
    processes: 2,
  },
  {
    name: 'a report on stdout followed by a log full of braces: the report is found',
    plan: ['continue', 'braces'],
    expect: { status: 'complete', rounds: 2, report: completeAt(2) },
    processes: 2,
  },
  {
    name: 'a report on stdout whose summary holds 600 braces: the report is found',
    plan: ['report-stdout'],
    report: braceful,
    expect: { status: 'complete', rounds: 1, report: braceful },
    processes: 1,
  },
  {
    name: 'a report file and another report on stdout: the file wins',
    plan: ['both'],
    expect: { status: 'complete', rounds: 1, report: completeAt(1) },
    processes: 1,
  },
  {
    name: 'an oversized report in round 2: over maxHandoffChars',
    plan: ['continue', 'report', 'complete'],
    report: oversized,
    config: { maxHandoffChars: 1_000 },
    expect: {
      code: 'workflow-failed',
      message: workflowFailed(
        `round 2 report is ${handoffSize(oversized)} characters, over the handoff cap of 1000`,
      ),
      round: 2,
      lastHandoff: continueAt(1),
    },
    processes: 2,
  },
  secondReport(
    'continue without next steps',
    { ...continueAt(2), nextSteps: [] },
    'nextSteps: a continue report must list next steps',
  ),
  secondReport(
    'continue with a blocker',
    { ...continueAt(2), blocker: 'something' },
    'blocker: a continue report must not carry a blocker',
  ),
  secondReport(
    'complete without evidence',
    { ...completeAt(2), evidence: [] },
    'evidence: a complete report must carry evidence',
  ),
  secondReport(
    'complete with next steps',
    { ...completeAt(2), nextSteps: ['more'] },
    'nextSteps: a complete report must not list next steps',
  ),
  secondReport(
    'complete with a blocker',
    { ...completeAt(2), blocker: 'oops' },
    'blocker: a complete report must not carry a blocker',
  ),
  secondReport(
    'blocked without a blocker',
    { ...blockedAt(2), blocker: null },
    'blocker: a blocked report must carry a concrete blocker',
  ),
  secondReport(
    'blocked with a blank blocker',
    { ...blockedAt(2), blocker: ' \t ' },
    'blocker: a blocked report must carry a concrete blocker',
  ),
  secondReport('a blank summary', { ...completeAt(2), summary: '   ' }, 'summary: summary must not be empty'),
  secondReport('an extra field', { ...completeAt(2), confidence: 0.9 }, 'Unrecognized key: "confidence"'),
  secondReport('a missing field', withoutBlocker, 'blocker: required; use null when there is no blocker'),
];

describe('the fault matrix: a child process misbehaves, and the call ends exactly as the contract says', () => {
  for (const row of rows)
    it(row.name, async () => {
      const { tool } = faultTool(s, row);
      const turn = new AbortController();
      const call = settled(
        tool.execute(
          { objective: 'survive the fault' },
          { agent: agentIn(s.workspace), signal: turn.signal },
        ),
      );
      if (row.cancelOnceLogged !== undefined) {
        const count = row.cancelOnceLogged;
        await until(async () => (await s.pids()).length >= count, `${count} processes to be in place`);
        turn.abort();
      }
      const result = await call;

      expectOutcome(result, row.expect);
      if (row.detailIncludes !== undefined) {
        const detail = result.ok ? '' : (result.error.detail ?? '');
        for (const part of row.detailIncludes) expect(detail).toContain(part);
      }
      if (row.signals !== undefined) {
        expect(await readFile(`${s.logs}/signals`, 'utf8')).toBe(row.signals);
      }
      expect(await s.pids()).toHaveLength(row.processes);
      await expectNothingLeft(s, tmp);
    });
});
