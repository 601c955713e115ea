import { type Command, Option } from 'commander';

export {
  SANDBOX_SETTING_WITHOUT_SANDBOX,
  type SandboxOptions,
  sandboxConfig,
} from '../../run/sandbox-options.js';

/** The help text after the options: what the sandbox holds. */
export const SANDBOX_HELP = `
Sandbox (off by default; Linux, with bubblewrap):
  --sandbox                  every process of the run (agent, evaluator, verify command) starts in a bubblewrap
                             sandbox: the workspace and the round's folder are the only places it can write, the
                             rest of the file system is read-only, its home and /tmp are private (only the agent
                             CLI's own config is bound in), its environment is an allow-list, and it has its own
                             PID namespace; ralph refuses to start where bubblewrap cannot run
  --sandbox-network none     no network but its own loopback (the example agent, a verify command)
  --sandbox-env NAME         pass this variable through too (repeatable; NAME or PREFIX*)
  --sandbox-hide PATH        hide this file or folder too (repeatable; e.g. a socket outside /run)
`;

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** Adds the sandbox options to a command. */
export function addSandboxOptions(command: Command): Command {
  return command
    .option('--sandbox', 'run every process of the run in a bubblewrap sandbox (Linux)')
    .addOption(
      new Option(
        '--sandbox-network <mode>',
        'the sandbox keeps the network (keep, default) or has none',
      ).choices(['keep', 'none']),
    )
    .option(
      '--sandbox-hide <path>',
      'a file or folder the sandboxed processes must not see (repeatable)',
      collect,
    )
    .option(
      '--sandbox-env <name>',
      'a variable the sandboxed processes keep (repeatable; NAME or PREFIX*)',
      collect,
    );
}
