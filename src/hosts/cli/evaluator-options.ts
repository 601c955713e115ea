import { type Command, Option } from 'commander';
import { EVALUATOR_PRESETS } from '../../run/evaluator-options.js';

export {
  EVALUATOR_CONFLICT,
  EVALUATOR_PRESETS,
  type EvaluatorOptions,
  evaluatorFor,
} from '../../run/evaluator-options.js';

/** The help text after the options: what the evaluator does. */
export const EVALUATOR_HELP = `
Independent evaluator (off by default; off, a run is exactly the reference's):
  --evaluator claude         a round that reports complete (after --verify passed, if set) is accepted only if
                             a fresh evaluator agent, started read-only in the workspace with the objective and
                             the report alone, checks the workspace and answers accept; a reject hands its
                             findings to the next round. An evaluator that changes the workspace fails the run
  --evaluator-command CMD    any evaluator following the command agent protocol (RALPH_ROLE=evaluator; the
                             verdict schema in RALPH_SCHEMA_FILE, the verdict to RALPH_REPORT_FILE)
`;

/** Adds the evaluator options to a command. */
export function addEvaluatorOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--evaluator <name>',
        'an independent evaluator that must accept a reported completion: claude, codex, qwen, gemini, opencode, copilot or droid, run read-only',
      ).choices(EVALUATOR_PRESETS),
    )
    .option(
      '--evaluator-command <cmd>',
      'any evaluator command following the command agent protocol (split into argv, never run by a shell)',
    )
    .option(
      '--evaluator-reports-cost',
      'the --evaluator-command evaluator writes its costUsd to RALPH_USAGE_FILE, so --max-cost can hold',
    );
}
