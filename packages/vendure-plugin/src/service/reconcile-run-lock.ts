import type { DataSource } from 'typeorm';

/** The name of the database lock a scheduled reconciliation run holds from its start to its end. */
export const RECONCILE_RUN_LOCK = 'gatewaykit-reconcile';

/** Embedded databases (one process owns them): runs in progress, by database. */
const runningHere = new WeakMap<DataSource, boolean>();

/**
 * `work` unless another scheduled reconciliation run is still going on the same database (any
 * instance, any worker): then nothing, and undefined. Vendure's own `preventOverlap` lock is cleared
 * once a run outlives the task's timeout or one interval (its stale-task check) while the run carries
 * on, so a slow gateway would pile runs up. The lock is the database's and is held on one connection
 * for the run: PostgreSQL's advisory lock, MySQL's and MariaDB's GET_LOCK, both let go if that
 * connection or its process dies. An embedded database has one process: a flag. Other databases run
 * without it, as before.
 */
export async function unlessRunning<T>(
  dataSource: DataSource,
  work: () => Promise<T>,
): Promise<T | undefined> {
  const type = dataSource.options.type;
  if (type === 'postgres' || type === 'mysql' || type === 'mariadb') {
    return withDatabaseLock(dataSource, type === 'postgres', work);
  }
  if (type === 'sqljs' || type === 'sqlite' || type === 'better-sqlite3') {
    if (runningHere.get(dataSource)) return undefined;
    runningHere.set(dataSource, true);
    try {
      return await work();
    } finally {
      runningHere.delete(dataSource);
    }
  }
  return work();
}

async function withDatabaseLock<T>(
  dataSource: DataSource,
  postgres: boolean,
  work: () => Promise<T>,
): Promise<T | undefined> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    const [row] = (await runner.query(
      postgres ? 'SELECT pg_try_advisory_lock(hashtext($1)) AS locked' : 'SELECT GET_LOCK(?, 0) AS locked',
      [RECONCILE_RUN_LOCK],
    )) as { locked: unknown }[];
    // PostgreSQL answers a boolean, MySQL 1 (0 when held, NULL on error).
    if (row?.locked !== true && Number(row?.locked) !== 1) return undefined;
    try {
      return await work();
    } finally {
      await runner.query(postgres ? 'SELECT pg_advisory_unlock(hashtext($1))' : 'SELECT RELEASE_LOCK(?)', [
        RECONCILE_RUN_LOCK,
      ]);
    }
  } finally {
    await runner.release();
  }
}
