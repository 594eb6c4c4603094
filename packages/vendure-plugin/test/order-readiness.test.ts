import {
  Order,
  type OrderState,
  OrderStateTransitionError,
  type PaymentMethod,
  type PaymentMethodService,
  type RequestContext,
} from '@vendure/core';
import { describe, expect, it, vi } from 'vitest';
import {
  arrangePayment,
  hasPayableRelations,
  ineligibility,
  isPaidMeanwhile,
  type OrderStates,
  PAYABLE_ORDER_RELATIONS,
  type Transactions,
} from '../src/service/order-readiness';

const ctx = {} as RequestContext;
const tx = { inTransaction: true } as unknown as RequestContext;
const connection: Transactions = { withTransaction: async (_ctx, work) => work(tx) };

/**
 * An order store whose transition to ArrangingPayment succeeds unless `refuse` says why not; the
 * transition answers the order with the payable relations loaded only when `loaded`.
 */
function orderStates(state: OrderState, refuse?: string, loaded = false) {
  let current = new Order({ id: 7, code: 'ABC', state });
  const orders = {
    findOne: vi.fn(async () => current),
    transitionToState: vi.fn(async (_ctx: RequestContext, _id: unknown, to: OrderState) => {
      if (refuse)
        return new OrderStateTransitionError({ fromState: state, toState: to, transitionError: refuse });
      current = new Order({
        id: 7,
        code: 'ABC',
        state: to,
        ...(loaded ? { payments: [], customer: null, lines: [{ productVariant: { id: 3 } }] } : {}),
      });
      return current;
    }),
  };
  return orders;
}

describe('arrangePayment', () => {
  it('moves an order that is still adding items to ArrangingPayment, inside the transaction', async () => {
    const orders = orderStates('AddingItems');
    const result = await arrangePayment(connection, orders as unknown as OrderStates, ctx, 7);
    expect(result).toBeInstanceOf(Order);
    expect((result as Order).state).toBe('ArrangingPayment');
    expect(orders.transitionToState).toHaveBeenCalledWith(tx, 7, 'ArrangingPayment');
    // The state is read without relations; the order with its lines once, after the transition.
    expect(orders.findOne.mock.calls).toEqual([
      [tx, 7, []],
      [tx, 7, PAYABLE_ORDER_RELATIONS],
    ]);
  });

  it('takes the order the transition answers when it carries every payable relation (no read again)', async () => {
    const orders = orderStates('AddingItems', undefined, true);
    const result = await arrangePayment(connection, orders as unknown as OrderStates, ctx, 7);
    expect((result as Order).state).toBe('ArrangingPayment');
    expect(orders.findOne.mock.calls).toEqual([[tx, 7, []]]);
  });

  it('hasPayableRelations: any relation left unloaded means the order is read again', () => {
    const full = { payments: [], customer: null, lines: [{ productVariant: { id: 3 } }] };
    expect(hasPayableRelations(new Order(full))).toBe(true);
    expect(hasPayableRelations(new Order({ ...full, payments: undefined }))).toBe(false);
    expect(hasPayableRelations(new Order({ ...full, customer: undefined }))).toBe(false);
    expect(hasPayableRelations(new Order({ ...full, lines: undefined }))).toBe(false);
    expect(hasPayableRelations(new Order({ ...full, lines: [{ productVariant: undefined }] }))).toBe(false);
  });

  it('takes an order already arranging payment as it is (a redirect may be open)', async () => {
    const orders = orderStates('ArrangingPayment');
    expect(await arrangePayment(connection, orders as unknown as OrderStates, ctx, 7)).toBeInstanceOf(Order);
    expect(orders.transitionToState).not.toHaveBeenCalled();
  });

  it('refuses an order in any other state, and says why a transition was refused', async () => {
    const shipped = orderStates('Shipped');
    expect(await arrangePayment(connection, shipped as unknown as OrderStates, ctx, 7)).toBe(
      'The order cannot be paid in state Shipped',
    );
    const guarded = orderStates('AddingItems', 'The order has no shipping method');
    expect(await arrangePayment(connection, guarded as unknown as OrderStates, ctx, 7)).toBe(
      'The order has no shipping method',
    );
  });

  it('goes on when a start beside it moved the order first (a double click), once the state is read again', async () => {
    // Vendure refuses ArrangingPayment to ArrangingPayment: the order this start read was AddingItems.
    let state: OrderState = 'AddingItems';
    const orders = {
      findOne: vi.fn(async () => new Order({ id: 7, code: 'ABC', state })),
      transitionToState: vi.fn(async (_ctx: RequestContext, _id: unknown, to: OrderState) => {
        state = 'ArrangingPayment';
        return new OrderStateTransitionError({ fromState: state, toState: to, transitionError: 'no' });
      }),
    };
    const result = await arrangePayment(connection, orders as unknown as OrderStates, ctx, 7);
    expect((result as Order).state).toBe('ArrangingPayment');
    expect(orders.findOne.mock.calls.at(-1)).toEqual([tx, 7, PAYABLE_ORDER_RELATIONS]);
  });

  it('says the order was paid meanwhile, not that it is in a wrong state', async () => {
    const settled = orderStates('PaymentSettled');
    expect(await arrangePayment(connection, settled as unknown as OrderStates, ctx, 7)).toEqual({
      paidMeanwhile: 'PaymentSettled',
    });
    // Settled by the other start between this one's read and its transition.
    let state: OrderState = 'AddingItems';
    const raced = {
      findOne: vi.fn(async () => new Order({ id: 7, code: 'ABC', state })),
      transitionToState: vi.fn(async (_ctx: RequestContext, _id: unknown, to: OrderState) => {
        state = 'PaymentAuthorized';
        return new OrderStateTransitionError({ fromState: state, toState: to, transitionError: 'no' });
      }),
    };
    const result = await arrangePayment(connection, raced as unknown as OrderStates, ctx, 7);
    expect(isPaidMeanwhile(result)).toBe(true);
    expect(result).toEqual({ paidMeanwhile: 'PaymentAuthorized' });
  });

  it('refuses a missing order', async () => {
    const orders = { findOne: vi.fn(async () => undefined), transitionToState: vi.fn() };
    expect(await arrangePayment(connection, orders as unknown as OrderStates, ctx, 7)).toBe(
      'There is no active order',
    );
  });
});

describe('ineligibility', () => {
  const order = new Order({ id: 7, code: 'ABC' });
  const method = (withChecker: boolean) =>
    ({
      code: 'gatewaykit-card',
      checker: withChecker ? { code: 'min', args: [] } : null,
    }) as unknown as PaymentMethod;
  const methods = (answer: boolean | string) =>
    ({
      getMethodAndOperations: vi.fn(async () => ({ checker: { check: vi.fn(async () => answer) } })),
    }) as unknown as Pick<PaymentMethodService, 'getMethodAndOperations'>;

  it('passes a method without a checker, or whose checker accepts', async () => {
    const none = methods(false);
    expect(await ineligibility(none, ctx, order, method(false))).toBeUndefined();
    expect(none.getMethodAndOperations).not.toHaveBeenCalled();
    expect(await ineligibility(methods(true), ctx, order, method(true))).toBeUndefined();
  });

  it("refuses with the checker's own message, or a generic one for a plain no", async () => {
    expect(await ineligibility(methods('Orders under $10 cannot use cards'), ctx, order, method(true))).toBe(
      'Orders under $10 cannot use cards',
    );
    expect(await ineligibility(methods(false), ctx, order, method(true))).toBe(
      'Payment method "gatewaykit-card" is not available for this order',
    );
  });
});
