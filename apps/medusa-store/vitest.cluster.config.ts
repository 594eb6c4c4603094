import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/cluster/**/*.test.ts'],
    // Two servers, a worker, Postgres and Redis for the whole run (scripts/topology.ts, booted once).
    globalSetup: ['test/cluster/global-setup.ts'],
    setupFiles: ['test/support/use-provided-store.ts'],
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 600_000,
  },
});
