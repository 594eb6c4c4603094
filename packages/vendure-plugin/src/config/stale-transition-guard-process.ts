import {
  type Injector,
  type OrderProcess,
  type OrderState,
  Payment,
  TransactionalConnection,
} from '@vendure/core';
import { lockOrderRow } from '../service/attempt-lock';
import { markInTransition } from './order-in-transition';

let connection: TransactionalConnection | undefined;

/** Said when a transition was refused because the order changed after it was read. */
export const STALE_TRANSITION_MESSAGE =
  'The order changed while this request moved it (another request changed it meanwhile, such as a payment being recorded): try again';

/**
 * Vendure's transitionToState reads the order and its payments without a lock, then saves what it read:
 * the state, and the payments list, where TypeORM detaches a payment missing from it. A transition whose
 * read predates another transaction's commit, such as a payment recorded for a gateway page while the
 * shopper moves the order back to AddingItems, would write the old state back and detach the payment:
 * the money is taken, the order looks unpaid and can be charged again (docs/SECURITY.md §5). Before
 * the save, this takes the order's row lock (held until the transition's transaction ends, so every
 * recording waits for it) and refuses the transition when the committed order is no longer the one
 * read. On an embedded database there is one connection and nothing to wait for.
 */
export const gatewaykitStaleTransitionGuardProcess: OrderProcess<OrderState> = {
  init(injector: Injector) {
    connection = injector.get(TransactionalConnection);
  },

  async onTransitionStart(fromState, _toState, { ctx, order }) {
    // Its saves may move the state (stale-order-save.subscriber.ts refuses any other save that does).
    markInTransition(order);
    if (!connection) return true;
    const committedState = await lockOrderRow(connection, ctx, order.id);
    if (committedState === undefined) return true;
    if (committedState !== fromState) return STALE_TRANSITION_MESSAGE;
    // A list that was not loaded is not saved either.
    if (!Array.isArray(order.payments)) return true;
    const read = new Set(order.payments.map((p) => String(p.id)));
    const committed = await connection
      .getRepository(ctx, Payment)
      .createQueryBuilder('payment')
      .select('payment.id')
      .where('payment.orderId = :id', { id: order.id })
      .getMany();
    return committed.every((p) => read.has(String(p.id))) ? true : STALE_TRANSITION_MESSAGE;
  },
};
