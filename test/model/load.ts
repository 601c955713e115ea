import { test } from 'vitest';

/**
 * Loads a module for a test file, turning a failure to load into a failing test. Stryker's Vitest runner reads a
 * file that throws while it is collected as a file with no tests, and so a mutant that breaks the machine at load
 * time as one that survived (stryker-js#6150); a failing test is what it counts.
 */
export async function loadOrFail<T>(what: string, load: () => Promise<T>): Promise<T | null> {
  try {
    return await load();
  } catch (error) {
    test(`${what} load`, () => {
      throw error;
    });
    return null;
  }
}

/** Runs `build` while the tests are collected; if it throws, registers a failing test named `name` instead. */
export function buildOrFail<T>(name: string, build: () => T): T | null {
  try {
    return build();
  } catch (error) {
    test(name, () => {
      throw error;
    });
    return null;
  }
}
