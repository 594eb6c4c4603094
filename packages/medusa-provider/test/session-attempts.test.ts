import { recordOutcome } from '@gatewaykit/core';
import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import { describe, expect, it, vi } from 'vitest';
import { SessionAttempts } from '../src/lib/session-attempts';

const payments = vi.hoisted(() => ({ processed: [] as string[] }));
vi.mock('@medusajs/medusa/core-flows', () => ({
  processPaymentWorkflow: () => ({
    run: async ({ input }: { input: { data: { session_id: string } } }) => {
      payments.processed.push(input.data.session_id);
      return {};
    },
  }),
  completeCartWorkflow: () => ({ run: async () => ({ errors: [] }) }),
}));

const SUCCESS = {
  status: 'succeeded' as const,
  orderNo: 'ps_1',
  tradeNo: 'T1',
  amount: '10.00',
  currency: 'USD',
};

/** One payment session of the account's provider and its cart, as Medusa's modules would answer them. */
function scopeWith(state: {
  outcome?: { status: string; orderNo: string };
  authorized: boolean;
  cartCompleted: boolean;
  collectionStatus?: string;
  cartTotal?: number;
  lockWaitSeconds?: number;
}) {
  const locks: string[] = [];
  const lockWaits: number[] = [];
  const errors: string[] = [];
  const graphs: string[] = [];
  const cartReads: string[] = [];
  let sessionReads = 0;
  const session = {
    id: 'ps_1',
    provider_id: 'pp_gatewaykit_gatewaykit',
    payment_collection_id: 'pc_1',
    amount: 10,
    currency_code: 'usd',
    status: state.authorized ? 'authorized' : 'pending',
    authorized_at: state.authorized ? new Date() : null,
    data: { orderNo: 'ps_1', amount: '10.00', currency: 'USD', outcome: state.outcome },
  };
  const container = {
    resolve(key: string) {
      if (key === Modules.PAYMENT)
        return {
          listPaymentSessions: async () => {
            sessionReads++;
            return [session];
          },
          updatePaymentSession: async (update: { data: Record<string, unknown> }) => {
            session.data = update.data as typeof session.data;
            return session;
          },
          listPaymentCollections: async () => [{ id: 'pc_1', status: state.collectionStatus ?? 'not_paid' }],
        };
      if (key === Modules.CART)
        return {
          listCarts: async ({ id }: { id: string }) => {
            cartReads.push(id);
            return [
              {
                id,
                completed_at: state.cartCompleted ? new Date() : null,
                currency_code: 'usd',
                total: state.cartTotal ?? 10,
              },
            ];
          },
        };
      if (key === ContainerRegistrationKeys.QUERY)
        return {
          graph: async ({ entity }: { entity: string }) => {
            graphs.push(entity);
            return {
              data: [
                {
                  id: 'pc_1',
                  cart_id: 'cart_1',
                  cart: { id: 'cart_1', completed_at: state.cartCompleted ? new Date() : null },
                  payment_collection: {
                    cart: { id: 'cart_1', completed_at: state.cartCompleted ? new Date() : null },
                  },
                  payment: { id: 'pay_1', canceled_at: null, refunds: [] },
                },
              ],
            };
          },
        };
      if (key === Modules.LOCKING)
        return {
          execute: async (lockKey: string, work: () => Promise<unknown>, options: { timeout: number }) => {
            locks.push(lockKey);
            lockWaits.push(options.timeout);
            return work();
          },
        };
      if (key === ContainerRegistrationKeys.LOGGER)
        return { info() {}, warn() {}, error: (line: string) => errors.push(line) };
      throw new Error(`unexpected ${key}`);
    },
  } as unknown as MedusaContainer;
  const account = { id: 'gatewaykit', providerIds: ['pp_gatewaykit_gatewaykit'] } as never;
  const store =
    state.lockWaitSeconds === undefined
      ? new SessionAttempts(container, account)
      : new SessionAttempts(container, account, state.lockWaitSeconds);
  return { store, locks, lockWaits, graphs, cartReads, errors, sessionReads: () => sessionReads };
}

describe('SessionAttempts: a success already in a placed order (outcomeStays)', () => {
  it('answers a duplicate success from a plain read: no cart lock, no completion, nothing written', async () => {
    const { store, locks, graphs, cartReads } = scopeWith({
      outcome: SUCCESS,
      authorized: true,
      cartCompleted: true,
    });
    expect((await recordOutcome(store, SUCCESS)).kind).toBe('duplicate');
    expect((await recordOutcome(store, { status: 'failed', orderNo: 'ps_1', reason: 'late' })).kind).toBe(
      'stale',
    );
    expect(locks).toEqual([]);
    // A session read and a cart read per outcome (is it an order yet?), no read across the link; the
    // link is read once (a collection's cart never changes); the paid-cart completion's read is not needed.
    expect(graphs).toEqual(['cart_payment_collection']);
    expect(cartReads).toEqual(['cart_1', 'cart_1']);
  });

  it('decides under the cart lock while the cart is open or the session not yet authorized', async () => {
    for (const state of [
      { outcome: SUCCESS, authorized: true, cartCompleted: false },
      { outcome: SUCCESS, authorized: false, cartCompleted: true },
    ]) {
      const { store, locks, graphs, sessionReads } = scopeWith(state);
      expect((await recordOutcome(store, SUCCESS)).kind).toBe('duplicate');
      expect(locks).toEqual(['cart_1']);
      // The lock key comes from the session the plain read found: read again under the lock, not before.
      expect(sessionReads()).toBe(2);
      expect(graphs.filter((entity) => entity === 'cart_payment_collection')).toHaveLength(1);
    }
  });
});

describe('SessionAttempts: a first success is authorized only where it can be applied', () => {
  const PENDING = { status: 'pending', orderNo: 'ps_1' };

  it("runs Medusa's payment workflow for a pending card's order that is still open", async () => {
    payments.processed = [];
    const { store, errors } = scopeWith({ outcome: PENDING, authorized: false, cartCompleted: true });
    expect((await recordOutcome(store, SUCCESS)).kind).toBe('changed');
    expect(payments.processed).toEqual(['ps_1']);
    // (The fake workflow authorizes nothing, which is reported after it; not what is judged here.)
    expect(errors.join('\n')).not.toMatch(/order was canceled|total is now/);
  });

  it('authorizes nothing for an order canceled meanwhile (its collection canceled) and reports it', async () => {
    payments.processed = [];
    const { store, errors } = scopeWith({
      outcome: PENDING,
      authorized: false,
      cartCompleted: true,
      collectionStatus: 'canceled',
    });
    expect((await recordOutcome(store, SUCCESS)).kind).toBe('changed');
    expect(payments.processed).toEqual([]);
    expect(errors.join('\n')).toMatch(
      /PAID BUT NOT APPLIED: .*ps_1.*order was canceled before the payment arrived/,
    );
  });

  it("authorizes nothing when the open cart's total moved away from what was paid, naming both amounts", async () => {
    payments.processed = [];
    const { store, errors } = scopeWith({
      outcome: { status: 'redirect', orderNo: 'ps_1' },
      authorized: false,
      cartCompleted: false,
      cartTotal: 12,
    });
    expect((await recordOutcome(store, SUCCESS)).kind).toBe('changed');
    expect(payments.processed).toEqual([]);
    expect(errors.join('\n')).toMatch(/total is now 12\.00 USD, not the 10\.00 USD paid/);
  });

  it('applies a success whose amount the gateway wrote another way (10, 10.0, 010.00, 10.000 for a 10.00 cart, or a number from its records)', async () => {
    for (const amount of ['10', '10.0', '010.00', '10.000', String(10)]) {
      payments.processed = [];
      const { store, errors } = scopeWith({
        outcome: { status: 'redirect', orderNo: 'ps_1' },
        authorized: false,
        cartCompleted: false,
      });
      expect((await recordOutcome(store, { ...SUCCESS, amount })).kind).toBe('changed');
      expect(payments.processed, amount).toEqual(['ps_1']);
      // (The fake workflow authorizes nothing, which is reported after it; not what is judged here.)
      expect(errors.join('\n'), amount).not.toMatch(/total is now/);
    }
  });

  it('attack: a success for a different value is still not applied, whatever its spelling', async () => {
    for (const amount of ['10.01', '1.000', '100', '10.0.0', '']) {
      payments.processed = [];
      const { store } = scopeWith({
        outcome: { status: 'redirect', orderNo: 'ps_1' },
        authorized: false,
        cartCompleted: false,
      });
      await recordOutcome(store, { ...SUCCESS, amount });
      expect(payments.processed, amount).toEqual([]);
    }
  });
});

describe("SessionAttempts: the wait for the cart's lock", () => {
  it('is a minute in a request, and what the worker asks for its kept callbacks', async () => {
    const request = scopeWith({ authorized: false, cartCompleted: false });
    await request.store.exclusive('ps_1', async () => undefined);
    expect(request.lockWaits).toEqual([60]);
    const worker = scopeWith({ authorized: false, cartCompleted: false, lockWaitSeconds: 10 });
    await worker.store.exclusive('ps_1', async () => undefined);
    expect(worker.locks).toEqual(['cart_1']);
    expect(worker.lockWaits).toEqual([10]);
  });
});
