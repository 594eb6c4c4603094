import type { MedusaContainer, PaymentSessionDTO } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { completePaidCart } from '../src/lib/paid-cart';

// vi.mock is hoisted above the imports. The real-path test (apps/medusa-store/test/paid-cart.test.ts) can only make Medusa's completion fail
// for good (out of stock, then Medusa refunds); a completion that fails once (a lock wait under load)
// and then succeeds is played here, with Medusa's workflow replaced.
const completions = vi.hoisted(() => ({
  results: [] as { errors: { error: Error }[] }[],
  carts: [] as string[],
}));
vi.mock('@medusajs/medusa/core-flows', () => ({
  completeCartWorkflow: () => ({
    run: async ({ input }: { input: { id: string } }) => {
      completions.carts.push(input.id);
      return completions.results.shift() ?? { errors: [] };
    },
  }),
}));

const session = { id: 'ps_1', payment_collection_id: 'pc_1' } as PaymentSessionDTO;
const outcome = {
  status: 'succeeded' as const,
  orderNo: 'ps_1',
  tradeNo: 'T1',
  amount: '10.00',
  currency: 'USD',
};

/**
 * A container whose query answers the session's cart `completed_at` and its payment's refunds, and
 * whose cart module the cart's total (10.00 USD, what was paid, unless given), as given.
 */
function scope(state: {
  completedAfter?: number;
  refunded?: boolean;
  refundedAfter?: number;
  total?: number;
  canceled?: boolean;
  paymentData?: Record<string, unknown>;
}) {
  const logs: string[] = [];
  const notifications: unknown[] = [];
  const paymentUpdates: { id: string; data?: Record<string, unknown> }[] = [];
  let cartReads = 0;
  const container = {
    resolve(key: string) {
      if (key === ContainerRegistrationKeys.LOGGER)
        return { error: (line: string) => logs.push(line), warn: (line: string) => logs.push(line) };
      if (key === Modules.NOTIFICATION)
        return { createNotifications: async (n: unknown) => notifications.push(n) };
      if (key === ContainerRegistrationKeys.PG_CONNECTION)
        return {
          raw: async (sql: string, values: unknown[]) => {
            // The mark alone, in place (no copy of the data read earlier).
            expect(sql).toMatch(/jsonb_set\(coalesce\(data, '\{\}'::jsonb\), '\{heldAlertedAt\}'/);
            expect(sql).toMatch(/coalesce\(data->'heldAlertedAt', 'null'::jsonb\) = 'null'::jsonb/i);
            paymentUpdates.push({ id: values[1] as string, data: { heldAlertedAt: values[0] } });
            return { rows: [] };
          },
        };
      if (key === Modules.CART)
        return {
          listCarts: async ({ id }: { id: string }) => [
            { id, completed_at: null, currency_code: 'usd', total: state.total ?? 10 },
          ],
        };
      if (key === ContainerRegistrationKeys.QUERY)
        return {
          graph: async ({ entity }: { entity: string }) => {
            if (entity !== 'payment_session') throw new Error(`unexpected read of ${entity}`);
            cartReads++;
            const completed = state.completedAfter !== undefined && cartReads > state.completedAfter;
            const refunded =
              state.refunded || (state.refundedAfter !== undefined && cartReads > state.refundedAfter);
            return {
              data: [
                {
                  id: 'ps_1',
                  payment_collection: { cart: { id: 'cart_1', completed_at: completed ? new Date() : null } },
                  payment: {
                    id: 'pay_1',
                    canceled_at: state.canceled ? new Date() : null,
                    refunds: refunded ? [{ id: 'r' }] : [],
                    data: state.paymentData ?? {},
                  },
                },
              ],
            };
          },
        };
      throw new Error(`unexpected ${key}`);
    },
  } as unknown as MedusaContainer;
  return { container, logs, notifications, paymentUpdates };
}

beforeEach(() => {
  completions.results = [];
  completions.carts = [];
});

describe('completePaidCart', () => {
  it('a completed cart is left alone', async () => {
    const { container, logs } = scope({ completedAfter: 0 });
    await completePaidCart(container, session, outcome, { first: true });
    expect(completions.carts).toEqual([]);
    expect(logs).toEqual([]);
  });

  it('an open cart whose first completion fails is completed on the next try, without an alert', async () => {
    vi.useFakeTimers();
    completions.results = [{ errors: [{ error: new Error('lock not acquired') }] }, { errors: [] }];
    const { container, logs } = scope({});
    const done = completePaidCart(container, session, outcome, { first: true });
    await vi.runAllTimersAsync();
    await done;
    vi.useRealTimers();
    expect(completions.carts).toEqual(['cart_1', 'cart_1']);
    expect(logs).toEqual([]);
  });

  it('a cart that stays open after every try is reported as paid but not applied', async () => {
    vi.useFakeTimers();
    completions.results = [1, 2, 3].map(() => ({ errors: [{ error: new Error('lock not acquired') }] }));
    const { container, logs, notifications } = scope({});
    const done = completePaidCart(container, session, outcome, { first: true });
    await vi.runAllTimersAsync();
    await done;
    vi.useRealTimers();
    expect(completions.carts).toHaveLength(3);
    expect(logs.join('\n')).toMatch(
      /PAID BUT NOT APPLIED: Gateway payment orderNo ps_1, tradeNo T1 .*lock not acquired/,
    );
    expect(notifications).toHaveLength(1);
  });

  it('a refund that lands during the last try is reported as returned, not as paid but not applied', async () => {
    // Medusa's compensation refunds while the failing completion holds the cart's lock; the last
    // completion then fails on the canceled session ("Payment sessions are required").
    vi.useFakeTimers();
    completions.results = [1, 2, 3].map(() => ({ errors: [{ error: new Error('lock not acquired') }] }));
    const { container, logs, notifications } = scope({ refundedAfter: 3 });
    const done = completePaidCart(container, session, outcome, { first: true });
    await vi.runAllTimersAsync();
    await done;
    vi.useRealTimers();
    expect(completions.carts).toHaveLength(3);
    expect(logs.join('\n')).toMatch(/PAYMENT RETURNED, NO ORDER: Gateway payment orderNo ps_1.*was refunded/);
    expect(logs.join('\n')).not.toMatch(/PAID BUT NOT APPLIED/);
    expect(notifications).toHaveLength(1);
  });

  it('a refunded payment never becomes an order, first time or later', async () => {
    const first = scope({ refunded: true });
    await completePaidCart(first.container, session, outcome, { first: true });
    expect(first.logs.join('\n')).toMatch(
      /PAYMENT RETURNED, NO ORDER: Gateway payment orderNo ps_1.*was refunded/,
    );
    const later = scope({ refunded: true });
    await completePaidCart(later.container, session, outcome, { first: false });
    expect(later.logs.join('\n')).toMatch(/ps_1 was refunded; its cart stays open/);
    expect(completions.carts).toEqual([]);
  });

  it('a cart whose total moved after the payment is not completed: the first success is alerted, naming both amounts, a repeat only warns', async () => {
    const first = scope({ total: 12 });
    await completePaidCart(first.container, session, outcome, { first: true });
    expect(first.logs.join('\n')).toMatch(
      /PAID BUT NOT APPLIED: Gateway payment orderNo ps_1.*total is now 12\.00 USD, not the 10\.00 USD paid/,
    );
    expect(first.notifications).toHaveLength(1);
    const later = scope({ total: 12 });
    await completePaidCart(later.container, session, outcome, { first: false });
    expect(later.logs.join('\n')).toMatch(/ps_1 is paid but its cart's total is now 12\.00 USD/);
    expect(later.notifications).toEqual([]);
    expect(completions.carts).toEqual([]);
  });

  it('a payment canceled without a refund is money held: alerted on a repeated success too, once (marked in the payment data)', async () => {
    // A card's success is recorded by its charge, so its callback reaches this as a repeat.
    const first = scope({ canceled: true });
    await completePaidCart(first.container, session, outcome, { first: false });
    expect(first.logs.join('\n')).toMatch(
      /PAID BUT NOT APPLIED: Gateway payment orderNo ps_1.*pay_1 was canceled without a refund/,
    );
    expect(first.notifications).toHaveLength(1);
    expect(first.paymentUpdates).toEqual([{ id: 'pay_1', data: { heldAlertedAt: expect.any(String) } }]);
    const again = scope({ canceled: true, paymentData: { heldAlertedAt: '2026-11-25T17:00:00.000Z' } });
    await completePaidCart(again.container, session, outcome, { first: true });
    expect(again.logs).toEqual([]);
    expect(again.notifications).toEqual([]);
    expect(again.paymentUpdates).toEqual([]);
    expect(completions.carts).toEqual([]);
  });

  it('a payment canceled and refunded is money returned, not held', async () => {
    const { container, logs } = scope({ canceled: true, refunded: true });
    await completePaidCart(container, session, outcome, { first: true });
    expect(logs.join('\n')).toMatch(/PAYMENT RETURNED, NO ORDER: Gateway payment orderNo ps_1.*was canceled/);
    expect(logs.join('\n')).not.toMatch(/PAID BUT NOT APPLIED/);
  });

  it('a repeated success tries once and only warns', async () => {
    completions.results = [{ errors: [{ error: new Error('still busy') }] }];
    const { container, logs, notifications } = scope({});
    await completePaidCart(container, session, outcome, { first: false });
    expect(completions.carts).toEqual(['cart_1']);
    expect(logs.join('\n')).toMatch(
      /is paid but its cart could not be completed into an order \(still busy\)/,
    );
    expect(notifications).toEqual([]);
  });
});
