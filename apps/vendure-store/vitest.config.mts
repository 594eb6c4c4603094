import { configDefaults, defineConfig } from 'vitest/config';

// Each test file boots its own sandbox + Vendure server (child process); files run one at a time.
// GK_VENDURE_TEST_DB=postgres runs them on PostgreSQL (test/support/test-database.ts); the cluster
// suite starts its own PostgreSQL either way, so that run leaves it out.
const onPostgres = process.env.GK_VENDURE_TEST_DB === 'postgres';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(onPostgres ? ['test/cluster.test.ts'] : [])],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/evidence-setup.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
