import { defineConfig } from 'vitest/config';

// Time limits bound a hang, never a healthy run: they are sized at three times the slowest time
// measured on a slow, busy 2-core machine (a busy loop taking one core), as CI may be (issue 18).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
  },
});
