import { z } from 'zod';

/** An environment variable's name, or a prefix pattern ending in `*` (`ANTHROPIC_*`). */
const envNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*\*?$/, 'an environment variable name, or a prefix ending in *');

/**
 * The sandbox every process of a run starts in (the agent, the evaluator, the verify command, the merge queue's
 * verify): on Linux, bubblewrap with a read-only file system, a private home and /tmp, the workspace and the round's
 * folder writable, an allow-listed environment and a PID namespace of its own. Absent: processes run as the user, as
 * in the reference.
 */
export const sandboxSchema = z.strictObject({
  /** `keep` (default): the host's network, since agents talk to their model's API; `none`: loopback of its own only. */
  network: z.enum(['keep', 'none']).default('keep'),
  /** Variables passed through besides the base list and the preset's own (names, or prefixes ending in `*`). */
  env: z.array(envNameSchema).max(1_000).default([]),
  /** Absolute paths hidden inside the sandbox wherever they are (the host's state folder, a recording, a URL file). */
  hide: z.array(z.string().startsWith('/').max(4_096)).max(1_000).default([]),
});

/** The sandbox of a run, every default filled in. */
export type RalphSandbox = z.output<typeof sandboxSchema>;

/**
 * What every sandboxed process keeps of the environment: the search path, the user's name and locale, the terminal,
 * the time zone, and the proxy and certificate settings a network call needs. Anything else (a token in ralph's own
 * environment, the database URL of a worker) stays outside unless the preset or the user names it.
 */
export const SANDBOX_BASE_ENV: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'TZ',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
];
