import { defineConfig } from 'vitest/config';

// The agents tier: the real `claude`, `codex`, `qwen`, `gemini`, `opencode` and `copilot` programs (installed into .agents-cache/ by
// scripts/install-agents.mjs) against scripted model servers on 127.0.0.1. Run with `npm run test:agents`.
export default defineConfig({
  test: {
    include: ['test/agents/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
    fileParallelism: false,
  },
});
