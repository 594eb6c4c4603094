import { generateMigration, runMigrations } from '@vendure/core';
import { buildConfig, MIGRATIONS_DIR, settingsFromEnv } from './config';

/**
 * The production schema's migrations, with Vendure's own tools, against DATABASE_URL:
 *   node dist/src/migrate.js run              applies the migrations not applied yet (built ones)
 *   node dist/src/migrate.js generate <name>  writes migrations/<timestamp>-<name>.ts from the
 *                                             difference between the schema the code wants (Vendure,
 *                                             the plugin's entity and custom field) and the database
 * `npm run migration -w @gatewaykit/vendure-store -- generate <name>` builds first. Review and commit
 * what it writes; then build again (the servers load dist/migrations/*.js).
 */
async function main(): Promise<void> {
  process.env.VENDURE_DISABLE_TELEMETRY ??= 'true';
  const [command, name = 'schema'] = process.argv.slice(2);
  const config = buildConfig(settingsFromEnv({ ...process.env, GATEWAYKIT_TOPOLOGY: 'production' }));
  if (command === 'generate') {
    await generateMigration(config, { name, outputDir: MIGRATIONS_DIR });
  } else if (command === 'run') {
    const applied = await runMigrations(config);
    console.log(applied.length ? `applied migrations: ${applied.join(', ')}` : 'no pending migrations');
  } else {
    throw new Error('usage: migrate.js run | generate <name>');
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
