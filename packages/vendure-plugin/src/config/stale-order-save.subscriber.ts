import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { IllegalOperationError, Logger, Order, TransactionalConnection } from '@vendure/core';
import type { EntitySubscriberInterface, UpdateEvent } from 'typeorm';
import { loggerCtx } from '../constants';
import { lockedOrderState, singleConnection } from '../service/attempt-lock';
import { isInTransition } from './order-in-transition';

/**
 * What only a state transition changes on an order (Vendure 3.7: its state machine and order process).
 * Not `orderPlacedAt`, set with them: MySQL's DATETIME drops an in-memory date's milliseconds, so a
 * seller order saved again after its insert would differ there alone.
 */
const SET_BY_TRANSITIONS = ['state', 'active'];

/** Said to whoever made the refused change (a GraphQL error with Vendure's ILLEGAL_OPERATION code). */
export const STALE_ORDER_SAVE_MESSAGE =
  'The order changed while this request changed it (another request moved it meanwhile, such as a payment being recorded): read the order again';

/**
 * Vendure's order mutations (items, coupons, addresses, shipping, customer) save the order they read,
 * without a lock, and TypeORM writes every column whose value differs from the row it reads again just
 * before the save. One that read the order before a gateway page's success was recorded and saved after
 * wrote the old state back over the placed order: active again, in AddingItems or ArrangingPayment, no
 * longer placed, its payment still on it (docs/SECURITY.md §5). Outside a transition those columns never
 * change, so a save that would change them is refused; the request fails and changes nothing. Only
 * saves of the entity come here (an `update()` by query has no entity to compare).
 */
@Injectable()
export class StaleOrderSaveSubscriber implements EntitySubscriberInterface<Order>, OnApplicationBootstrap {
  constructor(private readonly connection: TransactionalConnection) {}

  onApplicationBootstrap(): void {
    this.connection.rawConnection.subscribers.push(this);
  }

  listenTo(): typeof Order {
    return Order;
  }

  async beforeUpdate(event: UpdateEvent<Order>): Promise<void> {
    const order = event.entity as Order | undefined;
    if (!order || isInTransition(order)) return;
    this.refuseMovedColumns(event, order);
    await this.refuseIfMovedMeanwhile(event, order);
  }

  /**
   * The columns above compare with the row TypeORM read just before the save; a transition committed
   * after that read and before the save's UPDATE (which waits for its row lock, then writes) would still
   * get this save's other columns: an address, totals, on the placed order. So on a server database the
   * save first takes the order's row lock (attempt-lock.ts, as every transition and payment recording
   * does) and is refused when the committed state is no longer the one this request read.
   */
  private async refuseIfMovedMeanwhile(event: UpdateEvent<Order>, order: Order): Promise<void> {
    const database = event.manager.connection;
    if (singleConnection(database) || order.id === undefined || order.state === undefined) return;
    const committed = await lockedOrderState(event.manager.getRepository(Order), database, order.id);
    if (committed === undefined || committed === order.state) return;
    Logger.warn(
      `Order ${order.code ?? order.id}: a save from an earlier read (state ${order.state}) came after the order moved to ${committed}; refused`,
      loggerCtx,
    );
    throw new IllegalOperationError(STALE_ORDER_SAVE_MESSAGE);
  }

  private refuseMovedColumns(event: UpdateEvent<Order>, order: Order): void {
    // The order's own columns: a custom field of the same name (customFields.state) is the store's.
    const moved = event.updatedColumns
      .filter((column) => !column.embeddedMetadata)
      .map((column) => column.propertyName)
      .filter((name) => SET_BY_TRANSITIONS.includes(name));
    if (moved.length === 0) return;
    const stored = event.databaseEntity as Order | undefined;
    Logger.warn(
      `Order ${order.code ?? order.id}: a save from an earlier read would have set ${moved.join(', ')} back (state ${stored?.state ?? '?'} → ${order.state}); refused`,
      loggerCtx,
    );
    throw new IllegalOperationError(STALE_ORDER_SAVE_MESSAGE);
  }
}
