import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Installing redis-server from Debian on a clean machine can take a minute.
  test: { include: ['test/**/*.test.ts'], testTimeout: 20_000, hookTimeout: 180_000 },
});
