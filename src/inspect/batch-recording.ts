import { closeSync, openSync, writeSync } from 'node:fs';

/** The first line of a batch's recording: what the batch was, and where each task's run is recorded. */
export interface BatchRecordingHeader {
  kind: 'ralph-batch';
  formatVersion: 1;
  batchId: string;
  startedAt: string;
  target: string;
  start: string;
  parallel: number;
  /**
   * Each task; `verify` is the verify command its merge runs on the combined tree (null: none), which
   * `ralph batch --land` runs again. Recordings made before it was recorded have no `verify`.
   */
  tasks: { id: string; objective: string; after: string[]; verify?: string | null }[];
  /** How long the merge's verify command may run, in milliseconds (absent in recordings made before it was kept). */
  verifyTimeoutMs?: number;
  /** Each task's run recording, relative to the batch recording's folder. */
  runs: Record<string, string>;
  /** The process that ran the batch (pid, start time, boot id), so a resume can refuse while it still runs. */
  process: unknown;
  /** The tasks file, as an absolute path, for the command that resumes the batch (absent in older recordings). */
  tasksFile?: string;
}

/** A task's status changed. */
export interface BatchTaskLine {
  kind: 'task';
  at: number;
  id: string;
  status: string;
  note: string | null;
  conflicts: string[];
  /** For a task that landed: the commit the merge queue moved the target to (absent when not known). */
  commit?: string;
}

/** The batch settled (or was cancelled, with its reason). */
export interface BatchSettledLine {
  kind: 'settled';
  at: number;
  cancelReason: string | null;
  /** When the batch settled, ISO 8601 (absent in older recordings). */
  endedAt?: string;
}

/** A batch's recording as read back: its header, and each task's last status. */
export interface BatchRecording {
  header: BatchRecordingHeader;
  tasks: Map<string, BatchTaskLine>;
  settled: BatchSettledLine | null;
  /** The process that ran it last (the one a resume continued it in, or a `--land` landed a task in, if any). */
  process: unknown;
}

/** Appends a batch's lines to its recording (0600, like a run's), one JSON object a line, each written at once. */
export class BatchRecorder {
  private readonly fd: number;
  private readonly started = performance.now();

  /** A new recording starting with `header`, or, for a resumed batch (header null), the same file continued. */
  constructor(path: string, header: BatchRecordingHeader | null) {
    this.fd = openSync(path, header === null ? 'a' : 'w', 0o600);
    if (header !== null) this.line(header);
  }

  /** Notes that a resumed batch continues here, from another process. */
  resumed(process: unknown): void {
    this.line({ kind: 'resumed', at: this.at(), process });
  }

  /** Notes that `process` lands one task by hand (`ralph batch --land`): while it runs, the batch is in use. */
  landing(process: unknown, taskId: string): void {
    this.line({ kind: 'land', at: this.at(), process, taskId });
  }

  private line(value: object): void {
    writeSync(this.fd, `${JSON.stringify(value)}\n`);
  }

  private at(): number {
    return Math.round(performance.now() - this.started);
  }

  task(entry: Omit<BatchTaskLine, 'kind' | 'at'>): void {
    this.line({ kind: 'task', at: this.at(), ...entry });
  }

  settled(cancelReason: string | null): void {
    this.line({ kind: 'settled', at: this.at(), cancelReason, endedAt: new Date().toISOString() });
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** True when a recording's first line is a batch's header. */
export function isBatchRecording(text: string): boolean {
  const end = text.indexOf('\n');
  const first = end < 0 ? text : text.slice(0, end);
  try {
    return (JSON.parse(first) as { kind?: unknown }).kind === 'ralph-batch';
  } catch {
    return false;
  }
}

/**
 * Reads a batch's recording; a line that is no JSON (a crash mid-write) ends it. A batch resumed after it settled
 * (a cancelled one) is not settled again until a later `settled` line says so.
 */
export function readBatchRecording(text: string): BatchRecording {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const header = JSON.parse(lines[0] ?? '{}') as BatchRecordingHeader;
  if (header.kind !== 'ralph-batch') throw new Error("its first line is not a batch's header");
  const tasks = new Map<string, BatchTaskLine>();
  let settled: BatchSettledLine | null = null;
  let process: unknown = header.process;
  for (const text of lines.slice(1)) {
    let line: BatchTaskLine | BatchSettledLine | { kind: 'resumed' | 'land'; process?: unknown };
    try {
      line = JSON.parse(text) as typeof line;
    } catch {
      break;
    }
    if (line.kind === 'task') tasks.set(line.id, line);
    else if (line.kind === 'settled') settled = line;
    else if (line.kind === 'resumed') {
      process = line.process;
      settled = null;
    } else if (line.kind === 'land') process = line.process;
  }
  return { header, tasks, settled, process };
}
