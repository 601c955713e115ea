import { RalphError } from '../contract/errors.js';
import type { SubagentProvider } from '../contract/types.js';
import { ProgramUnavailableError } from '../process/program-check.js';
import { commandProvider } from '../providers/command.js';
import { AGENT_PRESETS, type AgentOptions } from './agent-options.js';
import { evaluatorUnavailable } from './agent-texts.js';
import { presetProvider } from './preset-provider.js';

/** The evaluator options of `ralph run`, `ralph mcp`, `ralph batch` and `ralph submit`. */
export interface EvaluatorOptions {
  evaluator?: Exclude<(typeof AGENT_PRESETS)[number], 'example'>;
  evaluatorCommand?: string;
  evaluatorReportsCost?: boolean;
}

/** The presets `--evaluator` accepts: every real agent (the offline example agent does work, it does not judge it). */
export const EVALUATOR_PRESETS = AGENT_PRESETS.filter((name) => name !== 'example');

/** Refusal: both evaluator options given. */
export const EVALUATOR_CONFLICT =
  'ralph: use either --evaluator or --evaluator-command, not both: a run has one evaluator';

/** The registry name of a run's evaluator: its own, so that it never replaces the rounds' provider of the same agent. */
const evaluatorName = (name: string): string => `${name}-evaluator`;

/** The evaluator provider the options name, or undefined when they name none; refused when they name two. */
export function evaluatorFor(options: EvaluatorOptions & AgentOptions): SubagentProvider | undefined {
  if (options.evaluator !== undefined && options.evaluatorCommand !== undefined)
    throw new RalphError({ code: 'refused', message: EVALUATOR_CONFLICT });
  if (options.evaluatorCommand !== undefined)
    return refusingInEvaluatorWords(
      commandProvider({
        command: options.evaluatorCommand,
        name: evaluatorName('command'),
        ...(options.evaluatorReportsCost === true ? { reportsCost: true } : {}),
      }),
      options,
    );
  if (options.evaluator === undefined) return undefined;
  const preset = presetProvider(options.evaluator, options, { readOnly: true });
  return refusingInEvaluatorWords({ ...preset, name: evaluatorName(preset.name) }, options);
}

/**
 * The evaluator with a preflight that refuses a missing or unrunnable program naming the evaluator's flag
 * (`--evaluator-command`, `--claude-path` for `--evaluator claude`), never the worker's `--agent-command`, in
 * whichever command checks it before round 1.
 */
function refusingInEvaluatorWords(
  evaluator: SubagentProvider,
  options: EvaluatorOptions & AgentOptions,
): SubagentProvider {
  const { preflight } = evaluator;
  if (preflight === undefined) return evaluator;
  return {
    ...evaluator,
    preflight(cwd) {
      try {
        preflight(cwd);
      } catch (error) {
        if (!(error instanceof ProgramUnavailableError)) throw error;
        throw new RalphError({ code: 'refused', message: evaluatorUnavailable(options, error.problem) });
      }
    },
  };
}
