import { type Injector, Order, type OrderState, Payment, type RequestContext } from '@vendure/core';
import { describe, expect, it, vi } from 'vitest';
import {
  gatewaykitStaleTransitionGuardProcess as guard,
  STALE_TRANSITION_MESSAGE,
} from '../src/config/stale-transition-guard-process';

const ctx = {} as RequestContext;

/** A connection whose order row answers `state` and whose payments table holds `paymentIds`. */
function connectionWith(type: string, state: OrderState, paymentIds: number[]) {
  const locks: string[] = [];
  const builder = (entity: unknown) => {
    const chain = {
      select: () => chain,
      where: () => chain,
      setLock: (mode: string) => {
        locks.push(mode);
        return chain;
      },
      getOne: async () => (entity === Order ? { id: 7, state } : undefined),
      getMany: async () => (entity === Payment ? paymentIds.map((id) => ({ id })) : []),
    };
    return chain;
  };
  const connection = {
    rawConnection: { options: { type } },
    getRepository: vi.fn((_ctx: unknown, entity: unknown) => ({ createQueryBuilder: () => builder(entity) })),
  };
  guard.init?.({ get: () => connection } as unknown as Injector);
  return { connection, locks };
}

const start = (from: OrderState, order: Order) =>
  guard.onTransitionStart?.(from, 'ArrangingPayment', { ctx, order } as never);

describe('gatewaykitStaleTransitionGuardProcess', () => {
  it('lets a transition go on when the order is as it was read (row locked first)', async () => {
    const { locks } = connectionWith('postgres', 'AddingItems', [3]);
    const order = new Order({ id: 7, state: 'AddingItems', payments: [{ id: 3 }] });
    expect(await start('AddingItems', order)).toBe(true);
    expect(locks).toEqual(['for_no_key_update']);
  });

  it('refuses when another transaction moved the order after it was read', async () => {
    connectionWith('postgres', 'PaymentSettled', [3]);
    const order = new Order({ id: 7, state: 'ArrangingPayment', payments: [] });
    expect(await start('ArrangingPayment', order)).toBe(STALE_TRANSITION_MESSAGE);
  });

  it('refuses when a payment was added after the payments were read (the save would detach it)', async () => {
    connectionWith('mysql', 'ArrangingPayment', [3, 4]);
    const order = new Order({ id: 7, state: 'ArrangingPayment', payments: [{ id: 3 }] });
    expect(await start('ArrangingPayment', order)).toBe(STALE_TRANSITION_MESSAGE);
  });

  it('does not compare payments that were not loaded (they are not saved either)', async () => {
    connectionWith('postgres', 'AddingItems', [3]);
    expect(await start('AddingItems', new Order({ id: 7, state: 'AddingItems' }))).toBe(true);
  });

  it('asks nothing on an embedded database (one connection)', async () => {
    const { connection } = connectionWith('sqljs', 'PaymentSettled', [9]);
    expect(await start('AddingItems', new Order({ id: 7, state: 'AddingItems', payments: [] }))).toBe(true);
    expect(connection.getRepository).not.toHaveBeenCalled();
  });
});
