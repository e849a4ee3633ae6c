import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'web',
    include: ['src/**/*.test.{ts,tsx}', 'e2e/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
