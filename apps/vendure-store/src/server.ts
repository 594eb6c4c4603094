import fs from 'node:fs';
import path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { bootstrap, JobQueueService } from '@vendure/core';
import { populate } from '@vendure/core/cli';
import { Client } from 'pg';
import { APP_ROOT, buildConfig, type StoreSettings } from './config';
import { initialData } from './initial-data';
import { type StoreGateways, setupStore } from './setup-store';

/**
 * Boots the demo store. The first start (no database file yet) populates products, zones, tax and
 * shipping; later starts reuse the data. Payment methods and the yen channel are ensured every time.
 */
export async function startStore(
  settings: StoreSettings,
  gateways: StoreGateways,
  options: { setup?: boolean } = {},
): Promise<INestApplication> {
  const config = buildConfig(settings);
  const fresh = settings.database === 'postgres' ? await emptyPostgres(settings) : freshSqlJs(settings);
  const app = fresh
    ? await populate(() => bootstrap(config), initialData, path.join(APP_ROOT, 'data', 'products.csv'))
    : await bootstrap(config);
  // Production: jobs are processed by the worker process (src/worker.ts), never by a server instance.
  if (settings.topology === 'demo') await app.get(JobQueueService).start();
  // Several instances on one database: only the first one started runs the (idempotent) setup.
  if (options.setup ?? true) {
    await setupStore(
      `http://127.0.0.1:${settings.port}/admin-api`,
      gateways,
      settings.superadmin,
      settings.benchBaseline,
    );
  }
  return app;
}

function freshSqlJs(settings: StoreSettings): boolean {
  fs.mkdirSync(path.dirname(settings.dbPath), { recursive: true });
  return !fs.existsSync(settings.dbPath);
}

/** A migrated database without products yet (the schema comes from the migrations, the data from here). */
async function emptyPostgres(settings: StoreSettings): Promise<boolean> {
  const client = new Client({ connectionString: settings.databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ n: string }>('SELECT count(*) AS n FROM "product"');
    return Number(result.rows[0]?.n ?? 0) === 0;
  } finally {
    await client.end();
  }
}
