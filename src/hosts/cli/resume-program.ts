import type { Command } from 'commander';
import { addAgentOptions } from './agent-options.js';
import type { AnswerOptions } from './answer-command.js';
import { ASK_HELP, addAskOptions } from './ask-options.js';
import { addEvaluatorOptions } from './evaluator-options.js';
import type { SetExitCode } from './exit-codes.js';
import type { ResumeOptions } from './resume-options.js';
import { addSandboxOptions, SANDBOX_HELP } from './sandbox-options.js';

const RESUME_EXAMPLES = `
Examples:
  $ ralph run "Port the parser to Rust" --agent claude --record run.jsonl    # the host dies in round 3
  $ ralph resume run.jsonl --trust-recording                                   # round 3 again, then on
  $ ralph resume run.jsonl --agent claude                                      # the same, with your own agent

The run keeps its id, objective and round cap; the last accepted report is the next round's handoff. A round
that was going on is run again with a fresh child once what is left of the old one has been killed. A recording
is data: what it names to run (agent, command, binary paths, verify command, evaluator) and where runs only
with --trust-recording; an agent given here replaces all of it but the evaluator, working in --cwd or the current
folder (a recording naming another folder is refused), and an evaluator given here (--evaluator or
--evaluator-command) replaces the recorded one: a run recorded with an evaluator needs both, or --trust-recording.
A run whose host died while its evaluator checked a reported completion evaluates it again with a fresh evaluator.
The resumed run is recorded to the same file (the one resumed from is kept as <file>.1, <file>.2, …). A run that
settled, or whose host still runs, is refused (exit 2). A run recorded with --sandbox resumes in the sandbox
(--sandbox here adds it to a run recorded without); its --sandbox-env is taken only with --trust-recording.
`;

const ANSWER_EXAMPLES = `
Examples:
  $ ralph answer Vx3k9Qp2aB "Use the staging database"
  $ ralph answer run.jsonl "The key is in ~/.config/staging.env"
  $ ralph answer Vx3k9Qp2aB --give-up

A run killed while it waited keeps its question: the answer is kept, and ralph resume of its recording takes it.
Exit codes: 0 the answer was left for the run; 2 refused (the run waits on nothing, a bad run id, an empty answer).
`;

/** Registers `ralph resume`: continue a recorded run that did not settle. */
export function addResumeCommand(program: Command, setExitCode: SetExitCode): void {
  const resume = addSandboxOptions(
    addEvaluatorOptions(
      addAgentOptions(
        program
          .command('resume')
          .description(
            'continue a run recorded with ralph run --record that did not settle: same run id, objective and cap, from its last accepted report',
          )
          .argument('<file>', 'the recording (JSON Lines); the resumed run is recorded there again')
          .option('--json', 'print the result envelope as JSON instead of the text')
          .option('--record <file>', 'record the resumed run here instead of in <file>')
          .option('--inspect [port]', 'serve a live page of the run on 127.0.0.1 while it goes')
          .option('--inspect-keep', 'keep the live page up after the run, until Ctrl-C (implies --inspect)')
          .option(
            '--trust-recording',
            'run the agent, evaluator, binary paths and verify command the recording names (shown when refused without it)',
          ),
      ),
    ),
  )
    .addHelpText('after', RESUME_EXAMPLES + SANDBOX_HELP + ASK_HELP)
    .action(async (file: string, options: ResumeOptions) => {
      const { resumeCommand } = await import('./resume.js');
      setExitCode(await resumeCommand(file, options));
    });
  addAskOptions(resume);
}

/** Registers `ralph answer`: answer the question a waiting run asked. */
export function addAnswerCommand(program: Command, setExitCode: SetExitCode): void {
  program
    .command('answer')
    .description(
      "answer the question of a local run that waits (ralph run --ask): its blocked round's blocker",
    )
    .argument('<run>', "the run id (printed with the question), or the run's recording (--record)")
    .argument('[answer]', "the answer, one argument (quote it); the next round reads it as a person's")
    .option('--give-up', 'answer nothing: the run stops waiting and ends blocked now')
    .option('--database-url <url>', "a fleet run's database, postgres://… (default: $RALPH_DATABASE_URL)")
    .option('--database-url-file <file>', 'read the database URL from this file (its first line)')
    .addHelpText('after', ANSWER_EXAMPLES)
    .action(async (run: string, answer: string | undefined, options: AnswerOptions) => {
      const { answerCommand } = await import('./answer-command.js');
      setExitCode(await answerCommand(run, answer, options));
    });
}
