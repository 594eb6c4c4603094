import fs from 'node:fs';
import path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { bootstrap, JobQueueService } from '@vendure/core';
import { populate } from '@vendure/core/cli';
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
): Promise<INestApplication> {
  fs.mkdirSync(path.dirname(settings.dbPath), { recursive: true });
  const fresh = !fs.existsSync(settings.dbPath);
  const config = buildConfig(settings);
  const app = fresh
    ? await populate(() => bootstrap(config), initialData, path.join(APP_ROOT, 'data', 'products.csv'))
    : await bootstrap(config);
  await app.get(JobQueueService).start();
  await setupStore(`http://127.0.0.1:${settings.port}/admin-api`, gateways, settings.benchBaseline);
  return app;
}
