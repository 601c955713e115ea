/** The texts of `--sandbox`'s refusals: each says what is missing and how to get it, or how to run without it. */

/** Refusal: the platform has no bubblewrap. */
export function sandboxLinuxOnly(platform: string): string {
  return `Ralph cannot run in a sandbox on ${platform}: the sandbox is Linux-only for now (it uses bubblewrap). Run without --sandbox, or run ralph inside a Linux VM or container.`;
}

/** Refusal: `bwrap` is not installed. */
export function sandboxBwrapMissing(program: string): string {
  return `Ralph cannot run in a sandbox: bubblewrap (${program}) was not found. Install it (Debian and Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap), or run without --sandbox.`;
}

/** Refusal: `bwrap` is there but cannot create its namespaces. */
export function sandboxCannotStart(said: string): string {
  return `Ralph cannot run in a sandbox: bubblewrap could not create its namespaces (${said}). Unprivileged user namespaces are probably off: enable them (sudo sysctl -w kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 and later, sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0), or run without --sandbox.`;
}

/** Refusal: the run's provider (or its evaluator's) starts no process a sandbox could hold. */
export function providerCannotSandbox(provider: string, role: 'subagent' | 'evaluator'): string {
  return `Ralph cannot run ${role} provider "${provider}" in a sandbox: it does not start its children as processes ralph can sandbox (command agents and the agent CLI presets can). Use a command provider, or run without the sandbox.`;
}
