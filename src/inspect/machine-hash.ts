import { createHash } from 'node:crypto';
import type { AnyStateMachine } from 'xstate';

/**
 * The configuration as canonical JSON: keys sorted, and each function (an inline `params`, the context factory)
 * marked by its place rather than serialized, since its source text differs between a build and a bundle.
 */
function canonicalJson(value: unknown): string {
  if (typeof value === 'function') return '"[function]"';
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const hashes = new WeakMap<object, string>();

/**
 * `sha256:<hex>` of a machine's configuration: the same for the same states, transitions, guards, actions, actors,
 * ids and texts, whichever build of the package computes it; another machine version has another hash.
 */
export function machineHash(machine: AnyStateMachine): string {
  // Keyed by the configuration, which `machine.provide(...)` shares, so every provided copy hashes once.
  let hash = hashes.get(machine.config);
  if (hash === undefined) {
    hash = `sha256:${createHash('sha256').update(canonicalJson(machine.config)).digest('hex')}`;
    hashes.set(machine.config, hash);
  }
  return hash;
}
