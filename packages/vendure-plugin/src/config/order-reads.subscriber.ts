import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Order, TransactionalConnection } from '@vendure/core';
import type {
  EntitySubscriberInterface,
  InsertEvent,
  LoadEvent,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
  UpdateEvent,
} from 'typeorm';
import { singleConnection } from '../service/attempt-lock';

/** What a transaction saw of an order: its state and whether it was active (a shopper's, not placed). */
export interface OrderRead {
  state: string;
  active: boolean;
}

/**
 * Per open transaction (its query runner), what each order was when the transaction first read it, or
 * what it saved itself since. Weak: a runner's entry goes with it.
 */
const reads = new WeakMap<QueryRunner, Map<string, OrderRead>>();

/** What the transaction of `runner` first read of `orderId` (or last saved of it). */
export function orderRead(runner: QueryRunner | undefined, orderId: string | number): OrderRead | undefined {
  return runner ? reads.get(runner)?.get(String(orderId)) : undefined;
}

/** Whether the transaction of `runner` read any order (so a write of it may be judged on that read). */
export function readAnyOrder(runner: QueryRunner | undefined): boolean {
  return runner !== undefined && (reads.get(runner)?.size ?? 0) > 0;
}

/**
 * Keeps what each transaction read of its orders, for the stale order-line check
 * (stale-order-line-save.subscriber.ts): an order line carries no state of its order, so what the
 * request saw of the order is taken from the order it loaded. Only on server databases, in a
 * transaction (sql.js has one connection: no write comes between a read and its save).
 */
@Injectable()
export class OrderReadsSubscriber implements EntitySubscriberInterface<Order>, OnApplicationBootstrap {
  constructor(private readonly connection: TransactionalConnection) {}

  onApplicationBootstrap(): void {
    if (!singleConnection(this.connection.rawConnection))
      this.connection.rawConnection.subscribers.push(this);
  }

  listenTo(): typeof Order {
    return Order;
  }

  afterLoad(order: Order, event?: LoadEvent<Order>): void {
    // The first read stays: a later one may already see what another request committed meanwhile.
    note(event?.queryRunner, order, false);
  }

  afterInsert(event: InsertEvent<Order>): void {
    note(event.queryRunner, event.entity, true);
  }

  afterUpdate(event: UpdateEvent<Order>): void {
    // The transaction's own save (a transition) is what it reads from now on; an update() by query
    // names no order here and is skipped.
    note(event.queryRunner, event.entity as Partial<Order> | undefined, true);
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    // A savepoint's release keeps them: the transaction goes on.
    if (!event.queryRunner.isTransactionActive) reads.delete(event.queryRunner);
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    // A savepoint's rollback keeps them too: what the transaction read before it, it still read. (A
    // save it undid may stay noted; the line check refuses only an order read active and committed
    // placed, which an undone save of the transaction's own cannot make it refuse wrongly.)
    if (!event.queryRunner.isTransactionActive) reads.delete(event.queryRunner);
  }
}

function note(runner: QueryRunner | undefined, order: Partial<Order> | undefined, own: boolean): void {
  if (!runner?.isTransactionActive || order?.id == null) return;
  if (typeof order.state !== 'string' || typeof order.active !== 'boolean') return;
  let orders = reads.get(runner);
  if (!orders) {
    orders = new Map();
    reads.set(runner, orders);
  }
  const id = String(order.id);
  if (own || !orders.has(id)) orders.set(id, { state: order.state, active: order.active });
}
