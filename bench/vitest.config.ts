import { defineProject } from 'vitest/config';

// bench's own tests: the fault benchmark's scoring, and its short run on HotROD (CI).
export default defineProject({
  test: {
    name: 'bench',
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
