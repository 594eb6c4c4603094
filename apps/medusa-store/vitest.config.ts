import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The multi-instance tests boot their own topology: vitest.cluster.config.ts.
    exclude: [...configDefaults.exclude, 'test/cluster/**'],
    // One Medusa app, one Postgres and one sandbox for the whole run (booted in global setup).
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/use-provided-store.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
