// A host process for the fault rows that must not run inside the test process: one that may crash, or that the
// test kills. Run as `node --import tsx test/faults/host.ts '<HostScenario as JSON>'`; it prints a HostReport as
// one JSON line on stdout once every run settled, then exits by itself.
import { existsSync, readFileSync } from 'node:fs';
import {
  commandProvider,
  createProviderRegistry,
  createRalphTool,
  RalphError,
  type RalphProgressEvent,
} from '../../src/index.js';

/** What the host does. */
export interface HostScenario {
  /** fault.sh's argv. */
  command: string[];
  /** fault.sh's steps, one per round. */
  plan: string[];
  pidLog: string;
  workspace: string;
  /** How many runs to make, one after the other. */
  runs: number;
  /** When true, the host's onProgress throws on every event it is given (after noting it). */
  throwingProgress: boolean;
  /**
   * Once round 1's agent has logged its pid, the host dies: of an uncaught exception thrown from a timer, or by
   * calling process.exit(7).
   */
  die?: 'uncaught' | 'exit';
}

/** What the host saw, printed as its last line. */
export interface HostReport {
  outcomes: unknown[];
  /** Per run, every progress event delivered: `<type> <round>`. */
  events: string[][];
  /** Every process warning: its name (the emitWarning type) and code. */
  warnings: Array<{ name: string; code: string | undefined }>;
}

const scenario = JSON.parse(process.argv[2] ?? '') as HostScenario;
const warnings: HostReport['warnings'] = [];
process.on('warning', (warning: Error & { code?: string }) => {
  warnings.push({ name: warning.name, code: warning.code });
});

const providers = createProviderRegistry();
providers.register(
  commandProvider({
    command: scenario.command,
    env: { FIXTURE_PID_LOG: scenario.pidLog, FIXTURE_PLAN: scenario.plan.join(',') },
  }),
);
const tool = createRalphTool({ subagentProvider: 'command' }, { providers });

/** Dies as the scenario says once the agent's pid is in the log (polled: the host has nothing else to wait on). */
function dieOnceAgentRuns(how: 'uncaught' | 'exit'): void {
  const poll = setInterval(() => {
    if (!existsSync(scenario.pidLog) || readFileSync(scenario.pidLog, 'utf8') === '') return;
    clearInterval(poll);
    if (how === 'exit') process.exit(7);
    throw new Error('the host broke mid-round');
  }, 10);
}

const outcomes: unknown[] = [];
const events: string[][] = [];
for (let run = 0; run < scenario.runs; run += 1) {
  const seen: string[] = [];
  events.push(seen);
  const onProgress = (event: RalphProgressEvent) => {
    seen.push(`${event.type} ${event.round}`);
    if (scenario.die !== undefined && event.type === 'child-started') dieOnceAgentRuns(scenario.die);
    if (scenario.throwingProgress) throw new Error(`the host's progress callback broke on ${event.type}`);
  };
  try {
    const envelope = await tool.execute(
      { objective: 'host a run' },
      { agent: { id: 'host', cwd: scenario.workspace }, onProgress },
    );
    outcomes.push(envelope.result);
  } catch (error) {
    outcomes.push(error instanceof RalphError ? error.toJSON() : String(error));
  }
}
// A warning is emitted on the next tick; let every one arrive before reporting.
await new Promise((resolve) => setImmediate(resolve));
const report: HostReport = { outcomes, events, warnings };
process.stdout.write(`${JSON.stringify(report)}\n`);
