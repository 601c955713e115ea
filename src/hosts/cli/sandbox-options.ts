import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { RalphError } from '../../contract/errors.js';
import type { RalphSandbox } from '../../contract/sandbox.js';
import { ralphStateFolder } from '../../process/sandbox-spec.js';

/** The sandbox options of `ralph run`, `resume`, `batch`, `mcp` and `worker`. */
export interface SandboxOptions {
  sandbox?: boolean;
  sandboxNetwork?: 'keep' | 'none';
  sandboxEnv?: string[];
  sandboxHide?: string[];
}

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

/** Refusal: a sandbox setting without `--sandbox`. */
export const SANDBOX_SETTING_WITHOUT_SANDBOX =
  'ralph: --sandbox-network, --sandbox-env and --sandbox-hide set up the sandbox, which is off: add --sandbox';

/**
 * The deployment config's `sandbox` the options ask for (absent without `--sandbox`), hiding `hide` (a recording,
 * a URL file) and ralph's own state besides. Refused when a sandbox setting comes without `--sandbox`.
 */
export function sandboxConfig(options: SandboxOptions, hide: readonly (string | undefined)[] = []) {
  if (options.sandbox !== true) {
    const settings = [...(options.sandboxEnv ?? []), ...(options.sandboxHide ?? [])];
    if (options.sandboxNetwork !== undefined || settings.length > 0)
      throw new RalphError({ code: 'refused', message: SANDBOX_SETTING_WITHOUT_SANDBOX });
    return {};
  }
  const sandbox: RalphSandbox = {
    network: options.sandboxNetwork ?? 'keep',
    env: options.sandboxEnv ?? [],
    hide: [
      ralphStateFolder(),
      ...[...hide, ...(options.sandboxHide ?? [])].flatMap((path) =>
        path === undefined ? [] : [resolve(path)],
      ),
    ],
  };
  return { sandbox };
}
