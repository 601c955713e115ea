import { resolve } from 'node:path';
import { RalphError } from '../contract/errors.js';
import type { RalphSandbox } from '../contract/sandbox.js';
import { ralphStateFolder } from '../process/sandbox-spec.js';

/** The sandbox options of `ralph run`, `resume`, `batch`, `mcp` and `worker`. */
export interface SandboxOptions {
  sandbox?: boolean;
  sandboxNetwork?: 'keep' | 'none';
  sandboxEnv?: string[];
  sandboxHide?: string[];
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
