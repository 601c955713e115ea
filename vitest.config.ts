import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The agents tier has a config of its own (vitest.agents.config.ts, npm run test:agents).
    exclude: ['test/agents/**', 'node_modules/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
  },
});
