import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Remembers that a database was migrated and seeded by this exact Medusa version, app configuration,
 * seed and set of the provider's migrations, so a second start goes straight to `medusa start` (migrating
 * an up-to-date database still costs a full app boot). A changed medusa-config.ts (e.g. a new module with
 * tables), seed or a new provider migration runs setup again. GATEWAYKIT_FORCE_SETUP=true runs migrations
 * and the (idempotent) seed anyway.
 */
function fingerprint(databaseUrl: string): string {
  const require = createRequire(__filename);
  const medusa = (require('@medusajs/medusa/package.json') as { version: string }).version;
  const appDir = join(__dirname, '..');
  const sources = createHash('sha256');
  for (const file of ['medusa-config.ts', join('src', 'scripts', 'seed.ts')]) {
    sources.update(readFileSync(join(appDir, file)));
  }
  for (const migration of providerMigrations(require)) sources.update(migration);
  return `${databaseUrl}|medusa ${medusa}|${sources.digest('hex').slice(0, 16)}`;
}

/** The names of the gatewaykit provider's built migrations (a new one adds a table or column). */
function providerMigrations(require: NodeJS.Require): string[] {
  const root = dirname(require.resolve('@gatewaykit/medusa-provider/package.json'));
  const dir = join(root, '.medusa', 'server', 'src', 'providers', 'gatewaykit', 'migrations');
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.js'))
        .sort()
    : [];
}

function markerFile(dataDir: string): string {
  return join(dataDir, 'setup-done.txt');
}

export function setupDone(dataDir: string, databaseUrl: string): boolean {
  if (process.env.GATEWAYKIT_FORCE_SETUP === 'true') return false;
  const file = markerFile(dataDir);
  return existsSync(file) && readFileSync(file, 'utf8') === fingerprint(databaseUrl);
}

export function markSetupDone(dataDir: string, databaseUrl: string): void {
  writeFileSync(markerFile(dataDir), fingerprint(databaseUrl));
}
