import { defineConfig } from 'vitest/config';

// One Vitest project per workspace. ClickHouse-backed tests (*.int.test.ts) run the real
// embedded engine, one process per test file (chDB holds one session per process).
export default defineConfig({
  test: {
    pool: 'forks',
    // In CI a JSON report is written too; .ci/run turns it into the closing `N passed, N failed`.
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: process.env.CI ? { json: '.ci/vitest-results.json' } : {},
    maxWorkers: 2,
    projects: [
      'packages/contracts',
      'packages/analysis',
      'packages/charts',
      'packages/tracegen',
      'apps/api',
      'apps/web',
      'apps/demo',
      'apps/cli',
      'collectors',
      'bench',
    ],
  },
});
