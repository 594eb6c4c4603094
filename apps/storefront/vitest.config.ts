import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One stack (sandbox, Medusa + Postgres, Vendure, storefront) for the run, booted in global setup.
    globalSetup: ['test/support/global-setup.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});
