import { type ID, Order, type RequestContext, type TransactionalConnection } from '@vendure/core';
import type { DataSource, ObjectLiteral, ObjectType, Repository, SelectQueryBuilder } from 'typeorm';
import { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';

/**
 * The exclusive section of one payment attempt (core's AttemptStore.exclusive), held by the database
 * so that it works across server instances (docs/safety-rules.md, "Dedupe and locking": never process
 * memory).
 *
 * - Server databases (PostgreSQL, MySQL/MariaDB): one transaction that first takes row locks,
 *   `SELECT … FOR UPDATE` on the attempt row (by orderNo) and then on its order row (lockOrderRow). Every writer of
 *   that attempt or order, on any instance, waits for the commit and then reads the committed row.
 *   The lock order is always attempt, then order; Vendure's own transactions never lock attempt rows,
 *   so they cannot close a cycle. An orderNo without a row has nothing to lock (nothing gets written).
 * - sql.js / SQLite: the database lives in this process (sql.js) or in one file behind one connection,
 *   so there is exactly one writer process by construction, and TypeORM runs every transaction on that
 *   one connection: two transactions at once would interleave their statements. There the sections
 *   queue one after another per database. That queue is part of how the embedded database works, not a
 *   lock between instances (there cannot be a second instance).
 *
 * Inside the section the versioned conditional update of the attempt row (order-attempts.ts) stays the
 * last guard: a writer that read an older version changes nothing.
 */
export async function lockedTransaction<T>(
  connection: TransactionalConnection,
  ctx: RequestContext,
  orderNo: string,
  work: (tx: RequestContext) => Promise<T>,
): Promise<T> {
  const run = () =>
    connection.withTransaction(ctx, async (tx) => {
      if (!singleConnection(connection.rawConnection)) await lockAttemptAndOrder(connection, tx, orderNo);
      return work(tx);
    });
  return singleConnection(connection.rawConnection) ? queued(connection.rawConnection, run) : run();
}

/** `SELECT … FOR UPDATE` on the attempt row, then lockOrderRow on its order row (in the transaction of `tx`). */
async function lockAttemptAndOrder(
  connection: TransactionalConnection,
  tx: RequestContext,
  orderNo: string,
): Promise<void> {
  const attempt = await connection
    .getRepository(tx, GatewaykitPaymentAttempt)
    .createQueryBuilder('attempt')
    .select(['attempt.id', 'attempt.orderId'])
    .where('attempt.orderNo = :orderNo', { orderNo })
    .setLock('pessimistic_write')
    .getOne();
  if (!attempt) return;
  await lockOrderRow(connection, tx, attempt.orderId);
}

/**
 * A row lock on the order, in the transaction of `tx`, answering its committed state (undefined on an
 * embedded database, one connection, see lockedTransaction; or when the order is gone). Taken before a
 * Vendure transition saves the order (stale-transition-guard-process.ts): a transition saves the order it
 * read, state and payments, so one that read it before a payment was recorded and saved after would move
 * it back and detach that payment (docs/SECURITY.md, exactly once). PostgreSQL: FOR NO KEY UPDATE, which
 * serialises every writer of the order row just as FOR UPDATE does, but not the rows that only reference
 * it (payments, notes, history entries), whose inserts would otherwise wait and could close a cycle with
 * Vendure's own locks.
 */
export async function lockOrderRow(
  connection: TransactionalConnection,
  tx: RequestContext,
  orderId: string | number,
): Promise<string | undefined> {
  if (singleConnection(connection.rawConnection)) return undefined;
  return lockedOrderState(connection.getRepository(tx, Order), connection.rawConnection, orderId);
}

/**
 * Row `id` of `entity` (its `columns`) as committed, read under the row lock of its order `orderId`
 * (lockOrderRow), which the plugin's writers of that row hold while they write it: what they committed
 * before is read (readingCommitted), what they write later waits for this transaction.
 */
export async function readUnderOrderLock<T extends ObjectLiteral>(
  connection: TransactionalConnection,
  ctx: RequestContext,
  orderId: ID,
  entity: ObjectType<T>,
  id: ID,
  columns: string[],
): Promise<T | null> {
  await lockOrderRow(connection, ctx, orderId as string | number);
  const query = connection
    .getRepository(ctx, entity)
    .createQueryBuilder('row')
    .select(columns.map((column) => `row.${column}`))
    .where('row.id = :id', { id });
  return readingCommitted(query, connection.rawConnection).getOne();
}

/**
 * `query` made to see what committed since its transaction began, as a read under a lock must:
 * PostgreSQL's plain read (READ COMMITTED) already does; MySQL's and MariaDB's REPEATABLE READ give a
 * plain read the transaction's first snapshot, so there it becomes a locking (shared) read.
 */
export function readingCommitted<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  database: DataSource,
): SelectQueryBuilder<T> {
  const type = database.options.type;
  return type === 'mysql' || type === 'mariadb' ? query.setLock('pessimistic_read') : query;
}

/**
 * lockOrderRow through `orders`, a repository of the transaction's own manager (a TypeORM subscriber
 * has no RequestContext); server databases only.
 */
export async function lockedOrderState(
  orders: Repository<Order>,
  database: DataSource,
  orderId: string | number,
): Promise<string | undefined> {
  return (await lockedOrder(orders, database, orderId))?.state;
}

/** lockedOrderState with whether the order is still active (a shopper's, not yet placed). */
export async function lockedOrder(
  orders: Repository<Order>,
  database: DataSource,
  orderId: string | number,
): Promise<Pick<Order, 'state' | 'active'> | undefined> {
  const order = await orders
    .createQueryBuilder('order')
    .select(['order.id', 'order.state', 'order.active'])
    .where('order.id = :id', { id: orderId })
    .setLock(database.options.type === 'postgres' ? 'for_no_key_update' : 'pessimistic_write')
    .getOne();
  return order ? { state: order.state, active: order.active } : undefined;
}

const EMBEDDED = new Set([
  'sqljs',
  'sqlite',
  'better-sqlite3',
  'capacitor',
  'cordova',
  'expo',
  'nativescript',
]);

export function singleConnection(dataSource: DataSource): boolean {
  return EMBEDDED.has(dataSource.options.type);
}

/**
 * Tail of each queue per embedded database (see above: one process, one connection). The attempt
 * sections share one lane; refund-lock.ts queues the refunds of each payment in a lane of its own.
 */
const tails = new WeakMap<DataSource, Map<string, Promise<unknown>>>();

const ATTEMPT_LANE = 'attempts';

/** Runs `work` after everything queued before it in `lane` of `dataSource` has ended. */
export async function queued<T>(
  dataSource: DataSource,
  work: () => Promise<T>,
  lane: string = ATTEMPT_LANE,
): Promise<T> {
  let lanes = tails.get(dataSource);
  if (!lanes) {
    lanes = new Map();
    tails.set(dataSource, lanes);
  }
  const queue = lanes;
  const previous = queue.get(lane) ?? Promise.resolve();
  const current = previous.then(work, work);
  const tail = current.catch(() => undefined);
  queue.set(lane, tail);
  // A lane nobody queues on any more is dropped, so one lane per payment does not pile up.
  void tail.then(() => {
    if (queue.get(lane) === tail) queue.delete(lane);
  });
  return current;
}
