import { SANDBOX_BASE_ENV } from '../contract/sandbox.js';

/** Whether `name` is one of `patterns`: an exact name, or a prefix ending in `*`. */
function allowed(name: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) =>
    pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern,
  );
}

/**
 * The part of `env` a sandboxed process may see: the base list (PATH, locale, TERM, proxies…) and the names given
 * (the preset's, the user's `--sandbox-env`). TMPDIR is left out: inside, /tmp is the process's own.
 */
export function sandboxEnv(env: NodeJS.ProcessEnv, names: readonly string[]): NodeJS.ProcessEnv {
  const patterns = [...SANDBOX_BASE_ENV, ...names];
  const kept: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && allowed(name, patterns)) kept[name] = value;
  }
  return kept;
}
