// Mutation testing of the statechart and the contract (`npm run test:mutation`; not part of `npm test`).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  mutate: [
    'src/machines/**/*.ts',
    'src/contract/**/*.ts',
    '!src/contract/types.ts',
    '!src/contract/index.ts',
  ],
  coverageAnalysis: 'perTest',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 95, low: 90, break: 90 },
  concurrency: 2,
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['dist', 'reports', 'coverage', '*.tgz', 'scratch-*', '.bench-cache', '.agents-cache'],
};
