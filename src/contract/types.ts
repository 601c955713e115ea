/** A reference to an agent: its id and the folder it works in. */
export interface AgentRef {
  id: string;
  cwd: string;
}

/** The three states a round report may carry. */
export type ReportStatus = 'continue' | 'complete' | 'blocked';

/** A validated round report: the only state that crosses from one round to the next. */
export interface RalphReport {
  status: ReportStatus;
  summary: string;
  evidence: string[];
  nextSteps: string[];
  blocker: string | null;
}

/** What a provider needs to start one fresh child for one round. */
export interface ChildRequest {
  runId: string;
  round: number;
  maxRounds: number;
  objective: string;
  /** The previous round's validated report, or null in round 1. */
  handoff: RalphReport | null;
  /** The fixed standalone round prompt. */
  prompt: string;
  /** JSON Schema (draft-07) of the report; every field required. */
  outputSchema: Record<string, unknown>;
  /** The calling agent's folder: the shared workspace. */
  cwd: string;
  /** The calling agent: every child's parent. */
  parent: AgentRef;
}

/** Options the machine hands to `SubagentProvider.start`. */
export interface ChildStartOptions {
  /** Aborted when the run is cancelled; the child must stop. */
  signal: AbortSignal;
  /** How long a stopping child may take before it is killed (ms). */
  terminationGraceMs: number;
}

/** A started child. `report` resolves with the raw structured output, rejects on an ordinary child failure,
 * and after an abort settles only once the child has stopped. */
export interface ChildRun {
  id: string;
  report: Promise<unknown>;
}

/** What a provider declares about the children it starts. */
export interface ProviderCapabilities {
  structuredOutput: boolean;
  inheritsParentContext: boolean;
}

/** Something that can start fresh child agents. `start` rejecting is a provider-start failure. */
export interface SubagentProvider {
  name: string;
  capabilities: ProviderCapabilities;
  start(request: ChildRequest, options: ChildStartOptions): Promise<ChildRun>;
}

/** The ways a run can settle successfully. */
export type RalphResultStatus = 'complete' | 'blocked' | 'budget-limited';

/** The canonical value of a settled run. */
export interface RalphEnvelope {
  runId: string;
  agentsStarted: number;
  result: {
    status: RalphResultStatus;
    /** Rounds started. */
    rounds: number;
    report: RalphReport;
  };
}

/** Progress a run reports while it goes. */
export type RalphProgressEvent =
  | { type: 'round-started'; runId: string; round: number; maxRounds: number }
  | { type: 'child-started'; runId: string; round: number; maxRounds: number; childId: string }
  | { type: 'report-accepted'; runId: string; round: number; maxRounds: number; report: RalphReport };
