import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type RunningPostgres, startEmbeddedPostgres } from '../src/index.js';

let folder: string;
let postgres: RunningPostgres;

async function query(database: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: postgres.url(database) });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'gk-cluster-testing-pg-'));
  postgres = await startEmbeddedPostgres({ dataDir: join(folder, 'data'), port: await freePort() });
}, 120_000);

afterAll(async () => {
  await postgres?.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('startEmbeddedPostgres', () => {
  it('creates a database once and serves it over loopback TCP', async () => {
    await postgres.ensureDatabase('store_one');
    await postgres.ensureDatabase('store_one');
    await query('store_one', 'CREATE TABLE probe (value int)');
    await query('store_one', 'INSERT INTO probe VALUES (42)');
    expect(await query('store_one', 'SELECT value FROM probe')).toEqual([{ value: 42 }]);
    expect(postgres.url('store_one')).toBe(
      `postgres://postgres:postgres@127.0.0.1:${postgres.port}/store_one`,
    );
  });

  it('drops a database, even with a client still connected', async () => {
    await postgres.ensureDatabase('store_two');
    const held = new pg.Client({ connectionString: postgres.url('store_two') });
    await held.connect();
    held.on('error', () => {});
    await postgres.dropDatabase('store_two');
    const names = (await query('postgres', 'SELECT datname FROM pg_database')) as { datname: string }[];
    expect(names.map((row) => row.datname)).not.toContain('store_two');
    expect(names.map((row) => row.datname)).toContain('store_one');
    await held.end().catch(() => {});
  });
});
