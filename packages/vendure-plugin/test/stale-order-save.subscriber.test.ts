import { IllegalOperationError, Order, type TransactionalConnection } from '@vendure/core';
import type { UpdateEvent } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { markInTransition } from '../src/config/order-in-transition';
import { StaleOrderSaveSubscriber } from '../src/config/stale-order-save.subscriber';

const subscriber = new StaleOrderSaveSubscriber({} as TransactionalConnection);

/**
 * The transaction's manager on `type`; on a server database its order row answers `committed` and
 * `locks` records the row locks taken.
 */
function managerOn(type: string, committed?: string) {
  const locks: string[] = [];
  const chain = {
    select: () => chain,
    where: () => chain,
    setLock: (mode: string) => {
      locks.push(mode);
      return chain;
    },
    getOne: async () => ({ id: 7, state: committed }),
  };
  return {
    locks,
    manager: {
      connection: { options: { type } },
      getRepository: () => ({ createQueryBuilder: () => chain }),
    },
  };
}

/** The update event TypeORM gives for a save of `order` whose differing columns are `changed`. */
function saving(
  order: Order,
  changed: string[],
  stored: Partial<Order> = { state: 'PaymentSettled' },
  manager: unknown = managerOn('sqljs').manager,
) {
  return {
    entity: order,
    databaseEntity: stored,
    manager,
    updatedColumns: changed.map((propertyName) => ({ propertyName })),
  } as unknown as UpdateEvent<Order>;
}

describe('StaleOrderSaveSubscriber', () => {
  it('refuses a save outside a transition that would set the state or the placement back', async () => {
    for (const column of ['state', 'active']) {
      const order = new Order({ id: 7, code: 'ABC', state: 'ArrangingPayment' });
      await expect(subscriber.beforeUpdate(saving(order, ['subTotal', column]))).rejects.toThrow(
        IllegalOperationError,
      );
    }
  });

  it("lets other changes through: they are the request's own, custom fields of the same name too", async () => {
    const order = new Order({ id: 7, code: 'ABC', state: 'ArrangingPayment' });
    await expect(
      subscriber.beforeUpdate(saving(order, ['subTotal', 'shippingAddress'])),
    ).resolves.toBeUndefined();
    // A placing date alone (MySQL drops milliseconds, so a seller order saved again differs there).
    await expect(subscriber.beforeUpdate(saving(order, ['orderPlacedAt']))).resolves.toBeUndefined();
    const customState = {
      entity: order,
      databaseEntity: { state: 'ArrangingPayment' },
      manager: managerOn('sqljs').manager,
      updatedColumns: [{ propertyName: 'state', embeddedMetadata: { propertyName: 'customFields' } }],
    } as unknown as UpdateEvent<Order>;
    await expect(subscriber.beforeUpdate(customState)).resolves.toBeUndefined();
  });

  it('lets a transition save the state it moved the order to', async () => {
    const order = new Order({ id: 7, code: 'ABC', state: 'PaymentSettled' });
    markInTransition(order);
    const { manager, locks } = managerOn('postgres', 'ArrangingPayment');
    await expect(
      subscriber.beforeUpdate(
        saving(order, ['state', 'active', 'orderPlacedAt'], { state: 'ArrangingPayment' }, manager),
      ),
    ).resolves.toBeUndefined();
    expect(locks).toEqual([]);
  });

  it('attack: on a server database, a save whose order was placed after TypeORM read it again (its own columns, an address, would land on the placed order) is refused under the row lock', async () => {
    const order = new Order({ id: 7, code: 'ABC', state: 'ArrangingPayment' });
    const { manager, locks } = managerOn('postgres', 'PaymentSettled');
    await expect(
      subscriber.beforeUpdate(saving(order, ['shippingAddress'], { state: 'ArrangingPayment' }, manager)),
    ).rejects.toThrow(IllegalOperationError);
    expect(locks).toEqual(['for_no_key_update']);
  });

  it('on a server database, lets a save through under the row lock when the order is still as it was read', async () => {
    const order = new Order({ id: 7, code: 'ABC', state: 'ArrangingPayment' });
    const { manager, locks } = managerOn('mysql', 'ArrangingPayment');
    await expect(
      subscriber.beforeUpdate(saving(order, ['shippingAddress'], { state: 'ArrangingPayment' }, manager)),
    ).resolves.toBeUndefined();
    expect(locks).toEqual(['pessimistic_write']);
  });
});
