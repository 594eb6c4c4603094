import { IllegalOperationError, Order, type TransactionalConnection } from '@vendure/core';
import type { UpdateEvent } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { markInTransition } from '../src/config/order-in-transition';
import { StaleOrderSaveSubscriber } from '../src/config/stale-order-save.subscriber';

const subscriber = new StaleOrderSaveSubscriber({} as TransactionalConnection);

/** The update event TypeORM gives for a save of `order` whose differing columns are `changed`. */
function saving(order: Order, changed: string[], stored: Partial<Order> = { state: 'PaymentSettled' }) {
  return {
    entity: order,
    databaseEntity: stored,
    updatedColumns: changed.map((propertyName) => ({ propertyName })),
  } as unknown as UpdateEvent<Order>;
}

describe('StaleOrderSaveSubscriber', () => {
  it('refuses a save outside a transition that would set the state or the placement back', () => {
    for (const column of ['state', 'active']) {
      const order = new Order({ id: 7, code: 'ABC', state: 'ArrangingPayment' });
      expect(() => subscriber.beforeUpdate(saving(order, ['subTotal', column]))).toThrow(
        IllegalOperationError,
      );
    }
  });

  it("lets other changes through: they are the request's own, custom fields of the same name too", () => {
    const order = new Order({ id: 7, code: 'ABC', state: 'ArrangingPayment' });
    expect(() => subscriber.beforeUpdate(saving(order, ['subTotal', 'shippingAddress']))).not.toThrow();
    // A placing date alone (MySQL drops milliseconds, so a seller order saved again differs there).
    expect(() => subscriber.beforeUpdate(saving(order, ['orderPlacedAt']))).not.toThrow();
    const customState = {
      entity: order,
      databaseEntity: { state: 'ArrangingPayment' },
      updatedColumns: [{ propertyName: 'state', embeddedMetadata: { propertyName: 'customFields' } }],
    } as unknown as UpdateEvent<Order>;
    expect(() => subscriber.beforeUpdate(customState)).not.toThrow();
  });

  it('lets a transition save the state it moved the order to', () => {
    const order = new Order({ id: 7, code: 'ABC', state: 'PaymentSettled' });
    markInTransition(order);
    expect(() =>
      subscriber.beforeUpdate(
        saving(order, ['state', 'active', 'orderPlacedAt'], { state: 'ArrangingPayment' }),
      ),
    ).not.toThrow();
  });
});
