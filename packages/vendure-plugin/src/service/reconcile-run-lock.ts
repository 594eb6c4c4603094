import { redactedErrorText } from '@gatewaykit/core';
import { Logger } from '@vendure/core';
import type { DataSource, QueryRunner } from 'typeorm';
import { loggerCtx } from '../constants';
import { singleConnection } from './attempt-lock';

/** The name of the database lock a scheduled reconciliation run holds from its start to its end. */
export const RECONCILE_RUN_LOCK = 'gatewaykit-reconcile';

/** Embedded databases (one process owns them): runs in progress, by database. */
const runningHere = new WeakMap<DataSource, boolean>();

/**
 * `work` unless another scheduled reconciliation run is still going on the same database (any
 * instance, any worker): then nothing, and undefined. Vendure's own `preventOverlap` lock is cleared
 * once a run outlives the task's timeout or one interval (its stale-task check) while the run carries
 * on, so a slow gateway would pile runs up. The lock is the database's, held on one connection for the
 * run and gone with it if the connection or its process dies:
 * - PostgreSQL: an advisory lock of a transaction left open for the run, so a transaction pooler keeps
 *   the run on one server connection and no pooled connection keeps the lock after it;
 * - MySQL and MariaDB: GET_LOCK, whose names count across the whole server, so the name carries the
 *   database's; let go before the connection goes back to the pool;
 * - an embedded database has one process: a flag. Other databases run without it, as before.
 */
export async function unlessRunning<T>(
  dataSource: DataSource,
  work: () => Promise<T>,
): Promise<T | undefined> {
  const type = dataSource.options.type;
  if (type === 'postgres') return withTransactionLock(dataSource, work);
  if (type === 'mysql' || type === 'mariadb') return withServerLock(dataSource, work);
  if (singleConnection(dataSource)) {
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

async function withTransactionLock<T>(
  dataSource: DataSource,
  work: () => Promise<T>,
): Promise<T | undefined> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction();
    try {
      const [row] = (await runner.query('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked', [
        RECONCILE_RUN_LOCK,
      ])) as { locked: unknown }[];
      return row?.locked === true ? await work() : undefined;
    } finally {
      // The lock ends with the transaction. ROLLBACK fails only on a connection already gone (the
      // server ended it: `idle_in_transaction_session_timeout`, a restart), whose transaction and lock
      // went with it; the pool drops it, and the run's own result stands.
      await runner.rollbackTransaction().catch((error: unknown) => {
        Logger.warn(
          `Reconciliation: the run lock's connection was gone at the end of the run: ${redactedErrorText(error)}`,
          loggerCtx,
        );
      });
    }
  } finally {
    await runner.release();
  }
}

/** MySQL's lock names are at most 64 characters: the prefix and the database's name hashed (32). */
const MYSQL_LOCK_NAME = `CONCAT('${RECONCILE_RUN_LOCK}:', MD5(DATABASE()))`;

async function withServerLock<T>(dataSource: DataSource, work: () => Promise<T>): Promise<T | undefined> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    const [row] = (await runner.query(`SELECT GET_LOCK(${MYSQL_LOCK_NAME}, 0) AS locked`)) as {
      locked: unknown;
    }[];
    // 1 when taken; 0 when another connection holds it; NULL on an error.
    if (Number(row?.locked) !== 1) return undefined;
    try {
      return await work();
    } finally {
      await letGo(runner);
    }
  } finally {
    await runner.release();
  }
}

/**
 * Lets go of the lock before the connection goes back to the pool, where it would keep it: by its name,
 * else every lock of the connection (a connection that answers neither is broken, and its locks with it).
 */
async function letGo(runner: QueryRunner): Promise<void> {
  const released = await runner
    .query(`SELECT RELEASE_LOCK(${MYSQL_LOCK_NAME}) AS released`)
    .then((rows: { released?: unknown }[]) => Number(rows[0]?.released) === 1)
    .catch(() => false);
  if (!released) await runner.query('SELECT RELEASE_ALL_LOCKS()').catch(() => undefined);
}
