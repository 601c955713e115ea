import { defineConfig } from 'vitest/config';

// The tests Stryker runs against each mutant of src/machines and src/contract: the model-based replays, the
// property tests, and the unit tests of the machines and the contract. Process, CLI and host tests are left out:
// they exercise other code and only slow each mutant down.
export default defineConfig({
  test: {
    include: [
      'test/model/**/*.test.ts',
      'test/properties/**/*.test.ts',
      'test/contract/**/*.test.ts',
      'test/machines/**/*.test.ts',
    ],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
