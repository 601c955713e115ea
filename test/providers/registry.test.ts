import { describe, expect, it } from 'vitest';
import { createProviderRegistry, createScriptedProvider } from '../../src/index.js';

describe('the provider registry', () => {
  it('registers, looks up and unregisters by name', () => {
    const registry = createProviderRegistry();
    const provider = createScriptedProvider([], { name: 'a' });
    const unregister = registry.register(provider);
    expect(registry.get('a')).toBe(provider);
    expect(registry.names()).toEqual(['a']);
    unregister();
    expect(registry.get('a')).toBeUndefined();
  });

  it('lets an old unregister leave a newer provider of the same name alone', () => {
    const registry = createProviderRegistry();
    const unregisterOld = registry.register(createScriptedProvider([], { name: 'a' }));
    const fresh = createScriptedProvider([], { name: 'a' });
    registry.register(fresh);
    unregisterOld();
    expect(registry.get('a')).toBe(fresh);
  });
});
