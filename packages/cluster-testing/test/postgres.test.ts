import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  postgresPids,
  type RunningPostgres,
  startCpuMeter,
  startEmbeddedPostgres,
} from '../src/index.js';

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

  it("postgresPids finds the postmaster and a client's backend; the CPU meter counts a backend that ended", async () => {
    const dataDir = join(folder, 'data');
    const client = new pg.Client({ connectionString: postgres.url('postgres') });
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(postgresPids(dataDir)).toContain(rows[0]?.pid);
    const meter = startCpuMeter([{ name: 'postgres', pids: () => postgresPids(dataDir) }]);
    // Work in this backend, which then ends before the meter stops: its CPU reaches the postmaster.
    await client.query('SELECT count(*) FROM generate_series(1, 3000000)');
    await client.end();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(postgresPids(dataDir)).not.toContain(rows[0]?.pid);
    expect(meter.stop().get('postgres')).toBeGreaterThan(0);
    expect(postgresPids(join(folder, 'no-such-cluster'))).toEqual([]);
  });
});
