import { defineConfig } from 'vite';

// Only the build lives here; the server side (config.json and the API proxies) is added by
// server/serve.ts, which knows the store URLs at start time.
export default defineConfig({
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
});
