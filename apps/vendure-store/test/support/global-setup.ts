import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEMPLATE_DB } from './paths';
import { startServerProcess } from './server-process';

/** Populates one database (products, zones, channels, methods) that every test file starts from. */
export default async function setup(): Promise<void> {
  fs.rmSync(path.dirname(TEMPLATE_DB), { recursive: true, force: true });
  fs.mkdirSync(path.dirname(TEMPLATE_DB), { recursive: true });
  const work = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gk-vendure-populate-')), 'db.sqlite');
  // Payment methods point at an unused URL here; each test's server start re-points them at its sandbox.
  const server = await startServerProcess({ DB_PATH: work, GATEWAY_BASE_URL: 'http://127.0.0.1:9' });
  await server.stop();
  fs.copyFileSync(work, TEMPLATE_DB);
}
