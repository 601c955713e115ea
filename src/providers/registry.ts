import type { SubagentProvider } from '../contract/types.js';

/** Where a host registers the providers that can start fresh children. */
export interface ProviderRegistry {
  /** Registers a provider under its name (replacing one of the same name); returns its unregister. */
  register(provider: SubagentProvider): () => void;
  /** The provider registered under `name` right now. */
  get(name: string): SubagentProvider | undefined;
  /** The names registered right now. */
  names(): string[];
}

/** Creates an empty provider registry. Lookups are live, so registrations may change between calls. */
export function createProviderRegistry(): ProviderRegistry {
  const providers = new Map<string, SubagentProvider>();
  return {
    register(provider) {
      providers.set(provider.name, provider);
      return () => {
        if (providers.get(provider.name) === provider) providers.delete(provider.name);
      };
    },
    get: (name) => providers.get(name),
    names: () => [...providers.keys()],
  };
}
