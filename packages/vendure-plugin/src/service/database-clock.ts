import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Logger, TransactionalConnection } from '@vendure/core';
import { loggerCtx } from '../constants';

/**
 * Vendure's `createdAt` columns (the plugin's attempts too) are `timestamp` without a time zone,
 * filled by the database's own clock in its session's time zone and read back by the driver as this
 * process's local time. When the two time zones differ, every age the plugin judges from them is off
 * by hours: another method's hold on an order (5 minutes) or a gateway page's block (30 minutes) could
 * end at once and let a second charge start, and the reconciliation would look at the wrong attempts.
 * So the database's local time is read once at start, the way a `createdAt` is read, and a difference
 * is logged at error level with the fix (docs/safety-rules.md#time-zones).
 */

/** What the database's clock says in the form its `timestamp` columns are read, per driver; undefined: nothing to check. */
const LOCAL_NOW_SQL: Record<string, string> = {
  postgres: 'SELECT LOCALTIMESTAMP AS now',
  mysql: 'SELECT CURRENT_TIMESTAMP(6) AS now',
  mariadb: 'SELECT CURRENT_TIMESTAMP(6) AS now',
};

/** Beyond this the two clocks disagree by more than drift and a query's time: a time zone difference. */
export const CLOCK_TOLERANCE_MS = 60_000;

/** Why the database's local time `databaseNow` cannot be trusted against this process's `now`, or undefined. */
export function clockMismatch(databaseNow: unknown, now: number = Date.now()): string | undefined {
  const read = databaseNow instanceof Date ? databaseNow : new Date(String(databaseNow));
  if (Number.isNaN(read.getTime())) return undefined; // a driver answering something else: nothing to judge
  const off = read.getTime() - now;
  if (Math.abs(off) <= CLOCK_TOLERANCE_MS) return undefined;
  const minutes = Math.round(off / 60_000);
  return (
    `the database's local time reads ${Math.abs(minutes)} minutes ${off > 0 ? 'ahead of' : 'behind'} this server ` +
    `(time zone ${Intl.DateTimeFormat().resolvedOptions().timeZone}): run the servers and the database ` +
    `sessions in one time zone (TZ=UTC for Node, timezone 'UTC' for PostgreSQL), or the ages of payment ` +
    `attempts (order holds, gateway page blocks, reconciliation windows) are wrong by that much`
  );
}

/**
 * Why the ages of payment attempts cannot be trusted on this database (its `timestamp` columns read
 * back in another time zone than this process's), or undefined; `query` runs SQL on the store's
 * database. Also usable in a store's own health check.
 */
export async function databaseClockMismatch(
  driverType: string,
  query: (sql: string) => Promise<unknown>,
  now?: number,
): Promise<string | undefined> {
  const sql = LOCAL_NOW_SQL[driverType];
  if (!sql) return undefined; // SQLite and sql.js store and read UTC
  const [row] = (await query(sql)) as { now?: unknown }[];
  return clockMismatch(row?.now, now);
}

@Injectable()
export class DatabaseClockCheck implements OnApplicationBootstrap {
  constructor(private readonly connection: TransactionalConnection) {}

  async onApplicationBootstrap(): Promise<void> {
    const database = this.connection.rawConnection;
    try {
      const mismatch = await databaseClockMismatch(database.options.type, (sql) => database.query(sql));
      if (mismatch) Logger.error(`Payment attempt times: ${mismatch}.`, loggerCtx);
    } catch (error) {
      Logger.warn(`The database's clock could not be read: ${String(error)}`, loggerCtx);
    }
  }
}
