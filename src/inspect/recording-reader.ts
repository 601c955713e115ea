import { RECORDING_FORMAT_MISSING, recordingFormatTooNew } from '../contract/recording-messages.js';
import { migrateRecording } from './migrations/migrate.js';
import type { MigratingLine, RecordingFormat } from './migrations/migration.js';
import { recordedEventProblem, recordedSnapshotProblem } from './recorded-values.js';
import {
  FORCED_EXIT_TYPE,
  RECORDING_FORMAT_VERSION,
  RECORDING_HEADER_TYPE,
  type RecordedLine,
  type RecordingHeader,
} from './recording-format.js';
import { decodeRecordingJson } from './recording-json.js';

/** A recording that cannot be read or replayed, and the line (1-based) that says why. */
export class RecordingError extends Error {
  override readonly name = 'RecordingError';
  constructor(
    /** The line the problem is on (1 is the header). */
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

/** A recording's lines, read and checked for shape. */
export interface Recording {
  header: RecordingHeader;
  /** The lines after the header, each with its line number. */
  lines: { number: number; line: RecordedLine }[];
  /** The session id of the run's machine (the root actor); undefined when no actor was recorded. */
  rootSessionId: string | undefined;
  /**
   * The format the file was written in, when it is an older one: the header and lines are then the migrated ones
   * (today's format), and this names what the file itself says. Undefined for a recording of today's format.
   */
  migratedFrom?: RecordingFormat;
}

const INSPECTION_TYPES = new Set(['@xstate.actor', '@xstate.event', '@xstate.microstep', '@xstate.snapshot']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const hasType = (value: unknown): value is { type: string } =>
  isObject(value) && typeof value.type === 'string';

function parseObject(text: string, number: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = decodeRecordingJson(text);
  } catch (error) {
    const cut = text.trimEnd().endsWith('}') ? '' : ' (the recording may have been cut off mid-line)';
    throw new RecordingError(number, `is not JSON${cut}: ${(error as Error).message}`);
  }
  if (!isObject(value)) throw new RecordingError(number, 'is not a JSON object');
  return value;
}

/** Parses and checks the header line (of any format this package reads: see readRecording for the migration). */
export function parseRecordingHeader(text: string, number = 1): RecordingHeader {
  return checkRecordingHeader(parseObject(text, number), number);
}

/**
 * Checks a header's format version: a whole number from 1 up to the version this package writes; a later one is
 * refused, naming the version needed.
 */
function checkFormatVersion(header: Record<string, unknown>, number: number): void {
  const version = header.formatVersion;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1)
    throw new RecordingError(number, RECORDING_FORMAT_MISSING);
  if (version > RECORDING_FORMAT_VERSION)
    throw new RecordingError(
      number,
      recordingFormatTooNew(version, String(header.packageVersion ?? 'unknown'), RECORDING_FORMAT_VERSION),
    );
}

/** Checks a header already parsed. */
function checkRecordingHeader(header: Record<string, unknown>, number: number): RecordingHeader {
  if (header.type !== RECORDING_HEADER_TYPE)
    throw new RecordingError(
      number,
      `is not a ralph run recording header (its type is not "${RECORDING_HEADER_TYPE}")`,
    );
  checkFormatVersion(header, number);
  for (const field of ['packageVersion', 'machineHash', 'startedAt', 'runId'] as const) {
    if (typeof header[field] !== 'string') throw new RecordingError(number, `the header has no ${field}`);
  }
  if (!Number.isSafeInteger(header.maxResultChars) || (header.maxResultChars as number) < 1)
    throw new RecordingError(number, 'the header has no maxResultChars');
  if (header.host !== undefined && !isObject(header.host))
    throw new RecordingError(number, "the header's host is not an object");
  if (header.t !== 0) throw new RecordingError(number, 'the header is not at t 0');
  return header as unknown as RecordingHeader;
}

/** Parses and checks one line after the header (its shape, not what it means to the machine). */
export function parseRecordedLine(text: string, number: number): RecordedLine {
  return checkRecordedLine(parseObject(text, number), number);
}

/** Checks one line after the header, already parsed. */
function checkRecordedLine(line: Record<string, unknown>, number: number): RecordedLine {
  if (typeof line.t !== 'number' || !Number.isFinite(line.t) || line.t < 0)
    throw new RecordingError(number, 'has no time t (milliseconds since the run started)');
  if (line.type === FORCED_EXIT_TYPE) return line as unknown as RecordedLine;
  if (typeof line.type !== 'string' || !INSPECTION_TYPES.has(line.type))
    throw new RecordingError(number, `has an unknown type ${JSON.stringify(line.type)}`);
  if (typeof line.sessionId !== 'string') throw new RecordingError(number, 'has no sessionId');
  switch (line.type) {
    case '@xstate.actor':
      if (typeof line.name !== 'string') throw new RecordingError(number, 'names no actor');
      break;
    case '@xstate.event':
      if (!hasType(line.event)) throw new RecordingError(number, 'carries no event with a type');
      checkValues(recordedEventProblem(line.event), number);
      break;
    case '@xstate.microstep':
      if (!hasType(line.event) || !Array.isArray(line.transitions))
        throw new RecordingError(number, 'is not a microstep (event, value, transitions)');
      for (const transition of line.transitions) {
        if (
          !isObject(transition) ||
          typeof transition.source !== 'string' ||
          !Array.isArray(transition.targets)
        )
          throw new RecordingError(number, 'has a transition without a source and targets');
      }
      break;
    case '@xstate.snapshot':
      if (!hasType(line.event) || !isObject(line.snapshot) || typeof line.snapshot.status !== 'string')
        throw new RecordingError(number, 'carries no snapshot with a status');
      checkValues(recordedSnapshotProblem(line.snapshot), number);
      break;
  }
  return line as unknown as RecordedLine;
}

/** Throws a RecordingError naming the line when a value it holds is not of its shape (recorded-values.ts). */
function checkValues(problem: string | undefined, number: number): void {
  if (problem !== undefined) throw new RecordingError(number, problem);
}

/** Splits a recording's text into lines; one trailing newline is no line of its own. */
function linesOf(input: string | readonly string[]): readonly string[] {
  if (typeof input !== 'string') return input;
  const lines = input.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * Reads a recording (its text, or its lines) and checks its shape: the header first, then lines of known types in
 * time order, each actor introduced before its events, the run's machine first, a forced exit only last. A recording
 * of an older format is taken through the migration chain first (migrations/registry.ts) and checked as migrated;
 * one of a newer format is refused, naming the version it needs. Throws a RecordingError naming the line.
 */
export function readRecording(input: string | readonly string[]): Recording {
  const texts = linesOf(input);
  const [first] = texts;
  if (first === undefined || first.trim() === '') throw new RecordingError(1, 'the recording is empty');
  const head = parseObject(first, 1);
  if (head.type === RECORDING_HEADER_TYPE) checkFormatVersion(head, 1);
  if (head.formatVersion === RECORDING_FORMAT_VERSION || head.type !== RECORDING_HEADER_TYPE)
    return checkedRecording(
      checkRecordingHeader(head, 1),
      texts.slice(1).map((text, index) => parseLine(text, index + 2)),
      texts.length,
    );
  const { recording, from } = migrateRecording({
    header: head,
    lines: texts
      .slice(1)
      .map((text, index) => ({ number: index + 2, line: parseLineObject(text, index + 2) })),
  });
  const checked = checkedRecording(
    checkRecordingHeader(recording.header, 1),
    recording.lines.map(({ number, line }) => ({ number, line: checkRecordedLine(line, number) })),
    texts.length,
  );
  return from === undefined ? checked : { ...checked, migratedFrom: from };
}

/** One line after the header, parsed and checked. */
function parseLine(text: string, number: number): { number: number; line: RecordedLine } {
  return { number, line: checkRecordedLine(parseLineObject(text, number), number) };
}

/** One line after the header as a JSON object (an empty line refused). */
function parseLineObject(text: string, number: number): MigratingLine['line'] {
  if (text.trim() === '') throw new RecordingError(number, 'is empty');
  return parseObject(text, number);
}

/**
 * Checks the lines' order: in time, each actor introduced before its events, the run's machine first, a forced exit
 * only last (`count` is the file's number of lines).
 */
function checkedRecording(
  header: RecordingHeader,
  parsed: { number: number; line: RecordedLine }[],
  count: number,
): Recording {
  const lines: Recording['lines'] = [];
  const sessions = new Set<string>();
  let rootSessionId: string | undefined;
  let t = 0;
  for (const { number, line } of parsed) {
    if (line.t < t)
      throw new RecordingError(number, `is earlier (t ${line.t}) than the line before it (t ${t})`);
    t = line.t;
    if (line.type === FORCED_EXIT_TYPE) {
      if (number !== count) throw new RecordingError(number, 'a forced exit must be the last line');
    } else if (line.type === '@xstate.actor') {
      if (rootSessionId === undefined) {
        if (line.parentId !== undefined)
          throw new RecordingError(number, "the run's machine must be the first actor");
        rootSessionId = line.sessionId;
      }
      sessions.add(line.sessionId);
    } else if (!sessions.has(line.sessionId)) {
      throw new RecordingError(number, `is about actor ${line.sessionId}, which no earlier line created`);
    }
    lines.push({ number, line });
  }
  return { header, lines, rootSessionId };
}
