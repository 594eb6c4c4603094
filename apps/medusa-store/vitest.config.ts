import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One Medusa app, one Postgres and one sandbox for the whole run (booted in global setup).
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/use-provided-store.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
