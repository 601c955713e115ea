import type { z } from 'zod';
import { createRalphEngine, type RalphEngine, type RalphStartOptions } from '../actors/engine.js';
import type { AnswerSource } from '../contract/answers.js';
import {
  callArgsSchema,
  callJsonSchema,
  MAX_OBJECTIVE_CHARS,
  objectiveOf,
  objectiveTooLong,
} from '../contract/call.js';
import { normalizeConfig, type RalphConfig, type RalphConfigInput } from '../contract/config.js';
import { RalphError } from '../contract/errors.js';
import { RALPH_GUIDANCE } from '../contract/guidance.js';
import type { AgentRef, RalphEnvelope, RalphProgressEvent } from '../contract/types.js';
import type { RalphUsage } from '../contract/usage.js';
import type { RecordingSink } from '../inspect/recording-format.js';
import { assertSandboxAvailable } from '../process/sandbox-check.js';
import type { ProviderRegistry } from '../providers/registry.js';
import { type PendingCard, type ResultCard, renderPendingCard, renderResultCard } from '../render/cards.js';

/** What a host passes with each call. */
export interface RalphExec {
  /** The calling agent: the parent of every child, whose cwd is the shared workspace. */
  agent?: AgentRef;
  /** Aborting it cancels the run; `execute` still waits for the child to stop. */
  signal?: AbortSignal;
  onProgress?: (event: RalphProgressEvent) => void;
  /**
   * Records the run for `replayRecording` / `ralph replay` and the run report: a file path (created or truncated,
   * closed once the run settled) or a sink that gets each line as it is written (the host closes it).
   */
  record?: string | RecordingSink;
  /** What the host keeps in the recording's header as `host`. */
  recordingHost?: Record<string, unknown>;
  /** Continues a run that did not settle (its id and resume point, e.g. from `resumePointOf`); args are its own. */
  resume?: RalphStartOptions['resume'];
  /** When the run began, if before this call (a run taken over from another process): the wall clock counts from then. */
  startedAt?: number;
  /**
   * Called once the run is over, before `execute` settles, with what its rounds said they used, summed (the
   * rounds of a failed run included); not called when no round said anything.
   */
  onUsage?: (total: RalphUsage) => void;
  /**
   * Where a run that asks (`waitForAnswersMs` in the config) takes a person's answer from: a terminal, a file, a page,
   * an MCP tool (see `createAnswerInbox`). Absent: no answer can come, and the wait runs out.
   */
  answers?: AnswerSource;
}

/** What `createRalphTool` needs besides the config. */
export interface RalphToolDeps {
  providers: ProviderRegistry;
  /** The engine that runs the machine; a default one (ceiling 256) when omitted. */
  engine?: RalphEngine;
}

/** The ralph tool as a host exposes it to a model. */
export interface RalphTool {
  readonly name: 'ralph';
  /** The fixed routing guidance; also the tool's description. */
  readonly guidance: string;
  readonly description: string;
  /** The call's zod schema: objective and optional maxRounds, no stricter than the tool's own checks. */
  readonly inputSchema: typeof callArgsSchema;
  /** The call's JSON Schema: exactly `{ objective: string (required), maxRounds?: number }`. */
  readonly jsonSchema: typeof callJsonSchema;
  /** The normalized deployment config. */
  readonly config: RalphConfig;
  /** Runs the whole loop; resolves with the envelope or rejects with a RalphError. */
  execute(args: unknown, exec?: RalphExec): Promise<RalphEnvelope>;
  readonly render: {
    pending(args: unknown): PendingCard;
    result(args: unknown, envelope: RalphEnvelope): ResultCard;
  };
}

/** The arguments a model sends, as the input schema reads them. */
export type RalphToolArgs = z.infer<typeof callArgsSchema>;

/**
 * The config's maxRounds is the default of a call that sends none, so above the engine's own ceiling every such
 * call would be refused, for a reason the caller cannot fix: the two settings contradict each other, and that is
 * refused here, where both are fixed.
 */
function assertFitsEngine(config: RalphConfig, engine: RalphEngine): void {
  if (config.maxRounds <= engine.maxTotalAgents) return;
  throw new RalphError({
    code: 'refused',
    message:
      `Ralph config is invalid: maxRounds ${config.maxRounds} (the default and ceiling of a call's rounds) exceeds ` +
      `the engine's maxTotalAgents ${engine.maxTotalAgents}, so a call that sends no maxRounds could never run; ` +
      `set maxRounds to at most ${engine.maxTotalAgents} in the config, or create the engine with ` +
      `maxTotalAgents of at least ${config.maxRounds}`,
  });
}

/**
 * Creates the ralph tool. The config is validated and normalized here, and checked against the engine's ceiling
 * (bad config throws); the provider is looked up in the registry immediately before each call, never cached. The
 * envelope a call resolves with is the machine's own: its report was reviewed once, against the report rules and
 * the handoff cap, before the run could settle with it.
 */
export function createRalphTool(config: RalphConfigInput, deps: RalphToolDeps): RalphTool {
  const normalized = normalizeConfig(config);
  const engine = deps.engine ?? createRalphEngine();
  assertFitsEngine(normalized, engine);

  async function execute(args: unknown, exec: RalphExec = {}): Promise<RalphEnvelope> {
    // Checked before the machine, as the objective's own checks come first: an empty objective is never too long.
    const objective = objectiveOf(args);
    if (typeof objective === 'string' && objective.length > MAX_OBJECTIVE_CHARS) {
      throw new RalphError({ code: 'refused', message: objectiveTooLong(objective.length) });
    }
    // Never a silent run without it: where no sandbox can start, the call is refused before anything starts.
    if (normalized.sandbox !== undefined) await assertSandboxAvailable();
    const run = engine.start(
      {
        args,
        agent: exec.agent,
        config: normalized,
        provider: deps.providers.get(normalized.subagentProvider),
        ...(normalized.evaluator === undefined
          ? {}
          : { evaluator: deps.providers.get(normalized.evaluator.provider) }),
        ...(exec.onProgress === undefined ? {} : { onProgress: exec.onProgress }),
        ...(exec.answers === undefined ? {} : { answers: exec.answers }),
      },
      {
        ...(exec.signal === undefined ? {} : { signal: exec.signal }),
        ...(exec.record === undefined ? {} : { record: exec.record }),
        ...(exec.recordingHost === undefined ? {} : { recordingHost: exec.recordingHost }),
        ...(exec.resume === undefined ? {} : { resume: exec.resume }),
        ...(exec.startedAt === undefined ? {} : { startedAt: exec.startedAt }),
      },
    );
    try {
      return await run.result;
    } finally {
      run.dispose();
      const total = run.usage();
      if (total !== null) exec.onUsage?.(total);
    }
  }

  return {
    name: 'ralph',
    guidance: RALPH_GUIDANCE,
    description: RALPH_GUIDANCE,
    inputSchema: callArgsSchema,
    jsonSchema: callJsonSchema,
    config: normalized,
    execute,
    render: {
      pending: (args) => renderPendingCard(args),
      result: (args, envelope) => renderResultCard(args, envelope, normalized.maxResultChars),
    },
  };
}
