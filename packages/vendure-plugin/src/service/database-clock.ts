import { Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Logger, TransactionalConnection } from '@vendure/core';
import { loggerCtx } from '../constants';
import { databaseClockOffset, useDatabaseClockOffset } from './attempt-clock';

/**
 * Vendure's `createdAt` columns (the plugin's attempts too) are `timestamp` without a time zone,
 * filled by the database's own clock in its session's time zone and read back by the driver as this
 * process's local time. When the two time zones differ, an age judged against this process's clock is
 * off by hours: another method's hold on an order (5 minutes) or a gateway page's block (30 minutes)
 * would end at once and let a second charge start. So the database's local time is read the way a
 * `createdAt` is read, at start and every few minutes (a daylight-saving change moves it), ages are
 * judged on that clock (attempt-clock.ts), and a difference is logged with the fix
 * (docs/safety-rules.md#time-zones).
 */

/** What the database's clock says in the form its `timestamp` columns are read, per driver; undefined: nothing to check. */
const LOCAL_NOW_SQL: Record<string, string> = {
  postgres: 'SELECT LOCALTIMESTAMP AS now',
  mysql: 'SELECT CURRENT_TIMESTAMP(6) AS now',
  mariadb: 'SELECT CURRENT_TIMESTAMP(6) AS now',
};

/** Beyond this the two clocks disagree by more than drift and a query's time: a time zone difference. */
export const CLOCK_TOLERANCE_MS = 60_000;

/** How often the database's clock is read again while the server runs. */
const CLOCK_CHECK_INTERVAL_MS = 10 * 60_000;

/**
 * How far the database's local time `databaseNow` reads from this process's `now`: 0 within
 * CLOCK_TOLERANCE_MS, undefined when it cannot be read.
 */
function databaseOffset(databaseNow: unknown, now: number = Date.now()): number | undefined {
  const read = databaseNow instanceof Date ? databaseNow : new Date(String(databaseNow));
  if (Number.isNaN(read.getTime())) return undefined; // a driver answering something else: nothing to judge
  const off = read.getTime() - now;
  return Math.abs(off) <= CLOCK_TOLERANCE_MS ? 0 : off;
}

/** Why the database's local time `databaseNow` disagrees with this process's `now`, or undefined. */
export function clockMismatch(databaseNow: unknown, now: number = Date.now()): string | undefined {
  const off = databaseOffset(databaseNow, now);
  if (!off) return undefined;
  const minutes = Math.round(off / 60_000);
  return (
    `the database's local time reads ${Math.abs(minutes)} minutes ${off > 0 ? 'ahead of' : 'behind'} this server ` +
    `(time zone ${Intl.DateTimeFormat().resolvedOptions().timeZone}): run the servers and the database ` +
    `sessions in one time zone (TZ=UTC for Node, timezone 'UTC' for PostgreSQL); until then the ages of ` +
    `payment attempts (order holds, gateway page blocks, reconciliation windows) are judged on the ` +
    `database's clock, read again every ${CLOCK_CHECK_INTERVAL_MS / 60_000} minutes`
  );
}

/** The database's local time as its `timestamp` columns are read; undefined for drivers that store UTC. */
async function readDatabaseNow(
  driverType: string,
  query: (sql: string) => Promise<unknown>,
): Promise<{ now: unknown } | undefined> {
  const sql = LOCAL_NOW_SQL[driverType];
  if (!sql) return undefined; // SQLite and sql.js store and read UTC
  const [row] = (await query(sql)) as { now?: unknown }[];
  return { now: row?.now };
}

/**
 * Why the database's `timestamp` columns read back in another time zone than this process's, or
 * undefined; `query` runs SQL on the store's database. For a store's own health check.
 */
export async function databaseClockMismatch(
  driverType: string,
  query: (sql: string) => Promise<unknown>,
  now?: number,
): Promise<string | undefined> {
  const read = await readDatabaseNow(driverType, query);
  return read ? clockMismatch(read.now, now) : undefined;
}

@Injectable()
export class DatabaseClockCheck implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly connection: TransactionalConnection) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.measure(true);
    this.timer = setInterval(() => void this.measure(false), CLOCK_CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Reads the database's clock and judges ages on it; says so at start and whenever the offset moves. */
  async measure(atStart: boolean): Promise<void> {
    const database = this.connection.rawConnection;
    try {
      const read = await readDatabaseNow(database.options.type, (sql) => database.query(sql));
      if (!read) return;
      const now = Date.now();
      const offset = databaseOffset(read.now, now);
      if (offset === undefined) return;
      const before = databaseClockOffset();
      useDatabaseClockOffset(offset);
      if (offset !== 0 && (atStart || Math.abs(offset - before) > CLOCK_TOLERANCE_MS)) {
        Logger.error(`Payment attempt times: ${clockMismatch(read.now, now)}.`, loggerCtx);
      } else if (offset === 0 && before !== 0) {
        Logger.info('Payment attempt times: the database and this server now agree on the time.', loggerCtx);
      }
    } catch (error) {
      Logger.warn(`The database's clock could not be read: ${String(error)}`, loggerCtx);
    }
  }
}
