import { defineConfig } from 'vitest/config';

/**
 * `npm run test:package`: cronql as a user installs it — `npm pack`, then the tarball installed
 * into fresh projects (test-package/). Not part of `npm test`: the installs take minutes.
 */
export default defineConfig({
  test: {
    include: ['test-package/**/*.test.ts'],
    pool: 'forks',
    // One file, one shared set of installs; its steps are real processes with their own deadlines.
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 900_000,
  },
});
