import { configDefaults, defineConfig } from 'vitest/config';

// Each test file boots its own sandbox + Vendure server (child process); files run one at a time.
// GK_VENDURE_TEST_DB=postgres runs them on PostgreSQL (test/support/test-database.ts); the suites on
// the cluster stack start their own PostgreSQL either way, so that run leaves them out.
const onPostgres = process.env.GK_VENDURE_TEST_DB === 'postgres';
const ownPostgres = ['test/cluster.test.ts', 'test/placed-order-races.test.ts'];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(onPostgres ? ownPostgres : [])],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/evidence-setup.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
