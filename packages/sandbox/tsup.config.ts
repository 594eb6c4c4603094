import { defineConfig } from 'tsup';

export default defineConfig({
  // cli.ts starts with a shebang, which esbuild keeps, so dist/cli.js works as the package bin.
  entry: ['src/index.ts', 'src/cli.ts'],
  format: ['esm', 'cjs'],
  dts: { entry: 'src/index.ts' },
  sourcemap: true,
  clean: true,
  target: 'node20',
});
