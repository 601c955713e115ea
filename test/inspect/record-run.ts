import type { InspectionEvent, SnapshotFrom } from 'xstate';
import {
  createRalphEngine,
  normalizeConfig,
  type RalphEnvelope,
  RalphError,
  type RalphMachine,
  type RalphOutput,
  type RalphProgressEvent,
  type SubagentProvider,
} from '../../src/index.js';
import { stateKey } from '../../src/inspect/recording-format.js';
import { type FaultToolOptions, faultTool } from '../faults/harness.js';
import { type Scratch, until } from '../support/processes.js';

/** One run recorded through the engine, with what the live run ended as. */
export interface RecordedRun {
  /** The recording's lines, each with its newline, as the sink got them. */
  lines: string[];
  text: string;
  /** The machine's last snapshot in the live run. */
  final: SnapshotFrom<RalphMachine>;
  output: RalphOutput;
  /** What the host's onProgress received. */
  progress: RalphProgressEvent[];
  result: { ok: true; envelope: RalphEnvelope } | { ok: false; error: RalphError };
}

/** A recorded fault-agent run: the plan, the call's arguments, and when to cancel it. */
export interface RecordOptions extends FaultToolOptions {
  args?: unknown;
  /** Cancel once this many processes have logged their pids (the round's child is in place). */
  cancelOnceLogged?: number;
  /** Cancels once the run rests in this state (its dot path: `running.round.awaitingReport`). */
  cancelInState?: string;
  /** An inspector of the host's own, attached beside the recording. */
  inspect?: (event: InspectionEvent) => void;
  /** Another provider than the fake agent's (an in-process one). */
  provider?: SubagentProvider;
}

/**
 * Runs one loop of the plain-sh fake agent (real processes, through the command provider) on an engine, recording
 * it into an in-memory sink, and returns the recording with how the live run ended.
 */
export async function recordRun(s: Scratch, options: RecordOptions): Promise<RecordedRun> {
  const { providers } = faultTool(s, options);
  const name = options.name ?? 'command';
  const engine = createRalphEngine(options.inspect === undefined ? {} : { inspect: options.inspect });
  const lines: string[] = [];
  const progress: RalphProgressEvent[] = [];
  const controller = new AbortController();
  const run = engine.start(
    {
      args: options.args ?? { objective: 'Replay this loop', maxRounds: 5 },
      agent: { id: 'record-parent', cwd: s.workspace },
      config: normalizeConfig({ subagentProvider: options.provider?.name ?? name, ...options.config }),
      provider: options.provider ?? providers.get(name),
      onProgress: (event) => progress.push(event),
    },
    { signal: controller.signal, record: { write: (line: string) => lines.push(line) } },
  );
  if (options.cancelOnceLogged !== undefined) {
    const count = options.cancelOnceLogged;
    await until(async () => (await s.pids()).length >= count, `${count} processes to be in place`);
    controller.abort();
  }
  if (options.cancelInState !== undefined) {
    const state = options.cancelInState;
    await until(() => stateKey(run.actor?.getSnapshot().value) === state, `the run to rest in ${state}`);
    controller.abort();
  }
  let result: RecordedRun['result'];
  try {
    result = { ok: true, envelope: await run.result };
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    result = { ok: false, error };
  }
  run.dispose();
  const final = run.actor?.getSnapshot();
  if (final === undefined) throw new Error('the run started no machine');
  return { lines, text: lines.join(''), final, output: final.output as RalphOutput, progress, result };
}

/** The recording's lines as objects. */
export const parsed = (run: { lines: string[] }): Record<string, unknown>[] =>
  run.lines.map((line) => JSON.parse(line) as Record<string, unknown>);

/** The recording with line `number` (1-based) replaced by what `edit` makes of it (or removed when it returns null). */
export function editLine(
  text: string,
  number: number,
  edit: (line: Record<string, unknown>) => Record<string, unknown> | null,
): string {
  const lines = text.split('\n').filter((line) => line !== '');
  const edited = edit(JSON.parse(lines[number - 1] as string));
  if (edited === null) lines.splice(number - 1, 1);
  else lines[number - 1] = JSON.stringify(edited);
  return `${lines.join('\n')}\n`;
}

/** The 1-based numbers of the root machine's lines of a type, in order. */
export function rootLines(text: string, type: string, eventType?: string): number[] {
  const lines = text.split('\n').filter((line) => line !== '');
  const root = (JSON.parse(lines[1] as string) as { sessionId: string }).sessionId;
  return lines.flatMap((line, index) => {
    const value = JSON.parse(line) as { type: string; sessionId?: string; event?: { type: string } };
    if (value.type !== type || value.sessionId !== root) return [];
    if (eventType !== undefined && !value.event?.type.startsWith(eventType)) return [];
    return [index + 1];
  });
}
