import {
  type EntityRelationPaths,
  Order,
  type OrderService,
  type PaymentMethod,
  type PaymentMethodService,
  type RequestContext,
} from '@vendure/core';

/** Is the order in a state to be paid, and may this method pay it? Both asked before an attempt exists. */

/** What the request is built from (payment-request.ts) and the eligibility checker may look at. */
export const PAYABLE_ORDER_RELATIONS: EntityRelationPaths<Order>[] = [
  'payments',
  'customer',
  'lines',
  'lines.productVariant',
];

export interface Transactions {
  withTransaction<T>(ctx: RequestContext, work: (ctx: RequestContext) => Promise<T>): Promise<T>;
}

export type OrderStates = Pick<OrderService, 'findOne' | 'transitionToState'>;

/** An order paid (or authorized) while this start was on its way to it, such as by a double click. */
export interface PaidMeanwhile {
  paidMeanwhile: Order['state'];
}

const PAID_STATES: readonly Order['state'][] = ['PaymentAuthorized', 'PaymentSettled'];

export function isPaidMeanwhile(value: Order | string | PaidMeanwhile): value is PaidMeanwhile {
  return typeof value === 'object' && 'paidMeanwhile' in value;
}

/**
 * Moves the order to ArrangingPayment (the state it keeps while a redirect is open) and loads it with
 * PAYABLE_ORDER_RELATIONS; a string says why it cannot be paid.
 */
export async function arrangePayment(
  connection: Transactions,
  orders: OrderStates,
  ctx: RequestContext,
  orderId: Order['id'],
): Promise<Order | string | PaidMeanwhile> {
  return connection.withTransaction(ctx, async (tx) => {
    // The state alone first (no relations: Vendure's default set is the heaviest read), the order with
    // its lines once, after any transition (or from it).
    const order = await orders.findOne(tx, orderId, []);
    if (!order) return 'There is no active order';
    if (order.state === 'AddingItems') {
      const moved = await orders.transitionToState(tx, order.id, 'ArrangingPayment');
      if (moved instanceof Order) {
        // Vendure's transition loads the order with its lines, their variants, the customer and the
        // payments (3.7): taken as it is when it has them all, read again when a version does not.
        if (hasPayableRelations(moved)) return moved;
      } else {
        // A start beside this one (a double click) may have moved or paid the order since it was read:
        // Vendure refuses ArrangingPayment to ArrangingPayment, and the stale-transition guard a
        // transition whose order changed since it was read (stale-transition-guard-process.ts; this
        // transaction holds the order row from then on). Where it is now decides.
        const now = await orders.findOne(tx, orderId, []);
        if (now && PAID_STATES.includes(now.state)) return { paidMeanwhile: now.state };
        if (now?.state !== 'ArrangingPayment') return moved.transitionError ?? moved.message;
      }
    } else if (PAID_STATES.includes(order.state)) {
      return { paidMeanwhile: order.state };
    } else if (order.state !== 'ArrangingPayment') {
      return `The order cannot be paid in state ${order.state}`;
    }
    return (await orders.findOne(tx, orderId, PAYABLE_ORDER_RELATIONS)) ?? 'Order not found';
  });
}

/** Whether every relation in PAYABLE_ORDER_RELATIONS is loaded (an unloaded relation is undefined). */
export function hasPayableRelations(order: Order): boolean {
  return (
    Array.isArray(order.payments) &&
    order.customer !== undefined &&
    Array.isArray(order.lines) &&
    order.lines.every((line) => line.productVariant !== undefined)
  );
}

/**
 * The method's eligibility checker, run as Vendure will run it when the payment is added: refused
 * here, no charge is made that Vendure would then not record. A string says why.
 */
export async function ineligibility(
  paymentMethods: Pick<PaymentMethodService, 'getMethodAndOperations'>,
  ctx: RequestContext,
  order: Order,
  method: PaymentMethod,
): Promise<string | undefined> {
  if (!method.checker) return undefined;
  const { checker } = await paymentMethods.getMethodAndOperations(ctx, method.code);
  if (!checker) return undefined;
  const eligible = await checker.check(ctx, order, method.checker.args, method);
  if (eligible === false) return `Payment method "${method.code}" is not available for this order`;
  if (typeof eligible === 'string') return eligible;
  return undefined;
}
