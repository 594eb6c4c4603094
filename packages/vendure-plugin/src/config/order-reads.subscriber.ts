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

/**
 * Per open transaction (its query runner), the state each order had when the transaction first read
 * it, or the one it saved itself since. Weak: a runner's entry goes with it.
 */
const reads = new WeakMap<QueryRunner, Map<string, string>>();

/** The state `orderId` had when the transaction of `runner` first read it (or last saved it). */
export function stateRead(runner: QueryRunner | undefined, orderId: string | number): string | undefined {
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
    // Also a savepoint's: a save it undid is no longer the transaction's. Its reads so far are dropped
    // (later ones are kept afresh) rather than refuse a write on one that may be wrong.
    reads.delete(event.queryRunner);
  }
}

function note(runner: QueryRunner | undefined, order: Partial<Order> | undefined, own: boolean): void {
  if (!runner?.isTransactionActive || order?.id == null || typeof order.state !== 'string') return;
  let orders = reads.get(runner);
  if (!orders) {
    orders = new Map();
    reads.set(runner, orders);
  }
  const id = String(order.id);
  if (own || !orders.has(id)) orders.set(id, order.state);
}
