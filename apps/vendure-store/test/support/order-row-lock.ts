import { Client } from 'pg';
import type { ClusterStack } from './cluster';
import { eventually } from './shop';

/** Statements of the cluster's database waiting on a row lock, those whose text contains `table` (quoted). */
export async function lockWaits(stack: ClusterStack, table: string): Promise<number> {
  const [row] = await stack.sql<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE $1`,
    [`%"${table}"%`],
  );
  return row?.n ?? 0;
}

/**
 * A writer of order `orderId` as the plugin's are (attempt-lock.ts): it takes the order's row lock;
 * `request` is sent meanwhile; once a statement waits on that lock, `write` runs in the writer's
 * transaction, which then commits. With `orAnswered`, a request that answers without ever waiting
 * (nothing of it takes the lock) gets the write after its answer instead of failing the wait. The
 * request's outcome, once it answered.
 */
export async function whileOrderLocked<T>(
  stack: ClusterStack,
  orderId: string,
  request: () => Promise<T>,
  write: (writer: Client) => Promise<unknown>,
  { orAnswered = false }: { orAnswered?: boolean } = {},
): Promise<PromiseSettledResult<T>> {
  const writer = new Client({ connectionString: stack.cluster.databaseUrl });
  await writer.connect();
  try {
    await writer.query('BEGIN');
    await writer.query('SELECT id FROM "order" WHERE id = $1 FOR NO KEY UPDATE', [orderId]);
    let answered = false;
    const outcome = Promise.allSettled([request()]).then(([settled]) => {
      answered = true;
      return settled as PromiseSettledResult<T>;
    });
    // A statement on the order's row waiting for this writer's lock (not the scheduler's or another
    // table's waits, which the background tasks can have).
    await eventually(
      async () => ({ waiting: await lockWaits(stack, 'order'), answered }),
      (now) => now.waiting >= 1 || (orAnswered && now.answered),
      10_000,
    );
    await write(writer);
    await writer.query('COMMIT');
    return await outcome;
  } finally {
    await writer.end();
  }
}

/**
 * Row `id` of `table` held (`SELECT … FOR UPDATE`) from a connection of its own until `release`
 * (which may be called more than once): a writer that reaches it waits there, holding what it locked
 * before.
 */
export async function holdRow(
  stack: ClusterStack,
  table: string,
  id: string,
): Promise<{ release(): Promise<void> }> {
  const holder = new Client({ connectionString: stack.cluster.databaseUrl });
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query(`SELECT id FROM "${table}" WHERE id = $1 FOR UPDATE`, [id]);
  let released: Promise<void> | undefined;
  return {
    release() {
      released ??= holder
        .query('COMMIT')
        .then(() => holder.end())
        .catch(() => holder.end().catch(() => undefined));
      return released;
    },
  };
}
