import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, keepVitestExitCode, startEmbeddedPostgres } from '@gatewaykit/cluster-testing';
import { APP_DIR } from './paths';
import { startServerProcess } from './server-process';
import { TEST_DATABASE, type TemplateDatabase } from './test-database';

const TEMPLATE = 'gk_template';

/**
 * Populates one database (products, zones, channels, methods) per run, which every test file copies
 * (test-database.ts); removed after the run. On PostgreSQL: an embedded cluster in the OS temp dir, the
 * committed migrations, then the store's first start populates it.
 */
// The parameter is vitest's TestProject; only `provide` is used (typed structurally: this file is CommonJS).
export default async function setup(project: {
  provide: (key: 'templateDatabase', value: TemplateDatabase) => void;
}): Promise<() => Promise<void>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-vendure-template-'));
  // Payment methods point at an unused URL here; each test's server start re-points them at its sandbox.
  const gateway = { GATEWAY_BASE_URL: 'http://127.0.0.1:9' };
  if (TEST_DATABASE === 'sqljs') {
    const file = path.join(dir, 'template.sqlite');
    await (await startServerProcess({ DB_PATH: file, ...gateway })).stop();
    project.provide('templateDatabase', { kind: 'sqljs', file });
    return async () => fs.rmSync(dir, { recursive: true, force: true });
  }
  const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port: await freePort() });
  // Without this, a run with failed tests exits 0 (vitest-exit-code.ts in @gatewaykit/cluster-testing).
  keepVitestExitCode();
  try {
    await pg.ensureDatabase(TEMPLATE);
    const env = { GATEWAYKIT_DATABASE: 'postgres', DATABASE_URL: pg.url(TEMPLATE) };
    await migrate(env);
    await (await startServerProcess({ ...env, ...gateway })).stop();
  } catch (error) {
    await pg.stop();
    throw error;
  }
  project.provide('templateDatabase', { kind: 'postgres', adminUrl: pg.url('postgres'), template: TEMPLATE });
  return async () => {
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
}

/** The committed migrations, applied as a real store applies them (`migrate.js run`). */
async function migrate(env: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, [path.join(APP_DIR, 'dist', 'src', 'migrate.js'), 'run'], {
    env: { ...process.env, VENDURE_DISABLE_TELEMETRY: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`migrations failed (${code}):\n${output.slice(-3000)}`);
}
