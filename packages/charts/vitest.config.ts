import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'charts',
    include: ['src/**/*.test.{ts,tsx}'],
  },
});
