import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { IllegalOperationError, Logger, Order, OrderLine, TransactionalConnection } from '@vendure/core';
import type {
  EntityManager,
  EntitySubscriberInterface,
  InsertEvent,
  ObjectLiteral,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
  UpdateEvent,
} from 'typeorm';
import { loggerCtx } from '../constants';
import { lockedOrder, singleConnection } from '../service/attempt-lock';
import { type OrderRead, orderRead, readAnyOrder } from './order-reads.subscriber';
import { STALE_ORDER_SAVE_MESSAGE } from './stale-order-save.subscriber';

/**
 * Vendure's item mutations write the order line first, then save the order (OrderService and
 * OrderModifier, 3.7): a new line is inserted and attached to its order by query, a changed one saved.
 * A change that leaves every order total as it was (a free item, a line whose price adds nothing)
 * saves no order row, so the stale order-save check (stale-order-save.subscriber.ts) never runs, and a
 * request that read the order before a payment placed it put its line on the placed order
 * (docs/SECURITY.md §5). So before a line of an order its transaction read is written, the order's row
 * lock is taken (attempt-lock.ts, as every transition and payment recording does) and the write is
 * refused when the order was read active (a shopper's) and is now placed (no longer active). Only that
 * move: a line written after other moves (a fulfilment, another device sending the cart back to
 * AddingItems while a login merges carts, a store's own job writing line fields) is the writer's
 * business. Modifying, Draft, cancellations (lines changed by query, not checked) and the request's own
 * transitions write lines to an order in the state they read, or saved themselves. A removed line is not seen here: the order's save detaches it (no
 * entity in TypeORM's event) before Vendure removes it. Server databases only, as the order-save check.
 */
@Injectable()
export class StaleOrderLineSaveSubscriber
  implements EntitySubscriberInterface<OrderLine>, OnApplicationBootstrap
{
  constructor(private readonly connection: TransactionalConnection) {}

  onApplicationBootstrap(): void {
    if (!singleConnection(this.connection.rawConnection))
      this.connection.rawConnection.subscribers.push(this);
  }

  listenTo(): typeof OrderLine {
    return OrderLine;
  }

  beforeInsert(event: InsertEvent<OrderLine>): Promise<void> {
    return this.refuseIfPlacedMeanwhile(event, event.entity);
  }

  beforeUpdate(event: UpdateEvent<OrderLine>): Promise<void> {
    return this.refuseIfPlacedMeanwhile(event, event.entity);
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    if (!event.queryRunner.isTransactionActive) checkedOrders.delete(event.queryRunner);
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    // Also a savepoint's: the row locks taken after it are let go with it.
    checkedOrders.delete(event.queryRunner);
  }

  private async refuseIfPlacedMeanwhile(
    event: InsertEvent<OrderLine> | UpdateEvent<OrderLine>,
    line: ObjectLiteral | undefined,
  ): Promise<void> {
    const runner = event.queryRunner;
    if (!line || !readAnyOrder(runner)) return;
    const orderId = await orderIdOf(event.manager, line);
    if (orderId == null) return;
    const read = orderRead(runner, orderId);
    if (read?.active !== true || checked(runner).has(String(orderId))) return;
    const committed = await lockedOrder(event.manager.getRepository(Order), event.connection, orderId);
    if (committed && placedSince(read, committed)) {
      Logger.warn(
        `Order ${orderId}: an order line written from an earlier read (state ${read.state}) came after the order was placed (${committed.state}); refused`,
        loggerCtx,
      );
      throw new IllegalOperationError(STALE_ORDER_SAVE_MESSAGE);
    }
    // Its row lock is held to the end of the transaction, whose own saves are noted: checked once.
    checked(runner).add(String(orderId));
  }
}

/** True when an order the transaction read active (a shopper's) is placed in the committed row. */
export function placedSince(read: OrderRead, committed: { active: boolean }): boolean {
  return read.active && committed.active === false;
}

/** Per open transaction, the orders whose row lock its line writes took and found as read. */
const checkedOrders = new WeakMap<QueryRunner, Set<string>>();

function checked(runner: QueryRunner): Set<string> {
  let orders = checkedOrders.get(runner);
  if (!orders) {
    orders = new Set();
    checkedOrders.set(runner, orders);
  }
  return orders;
}

/**
 * The order a line write is for: the one it names (an insert with its order, the query attaching a new
 * line: `{ order: { id } }`), else the one the stored line belongs to.
 */
async function orderIdOf(manager: EntityManager, line: ObjectLiteral): Promise<string | number | undefined> {
  const named = line.order as { id?: string | number } | string | number | null | undefined;
  if (named != null) return typeof named === 'object' ? named.id : named;
  if (line.id == null) return undefined;
  const row = await manager
    .getRepository(OrderLine)
    .createQueryBuilder('line')
    .innerJoin('line.order', 'order')
    .select('order.id', 'orderId')
    .where('line.id = :id', { id: line.id })
    .getRawOne<{ orderId: string | number }>();
  return row?.orderId;
}
