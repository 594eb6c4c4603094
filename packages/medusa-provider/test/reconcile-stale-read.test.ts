import { type PaymentOutcome, recordOutcome } from '@gatewaykit/core';
import type { MedusaContainer } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import { describe, expect, it, vi } from 'vitest';
import { reconcileGatewayPayments } from '../src/lib/reconcile-run';
import { SessionAttempts } from '../src/lib/session-attempts';

const MINUTE = 60_000;
const ACCOUNT = vi.hoisted(() => ({
  id: 'gatewaykit',
  gatewayNo: '12345678',
  signKey: 'k',
  options: { gatewayNo: '12345678', signKey: 'k' },
  providerIds: ['pp_gatewaykit_gatewaykit'],
}));

// The run asks the gateway through core's gatewayClientFor: here a fake whose list call `gateway` answers.
const gateway = vi.hoisted(() => ({
  list: async (): Promise<unknown> => ({ list: [], page: { total: 0, pageSize: 100, pageIndex: 1 } }),
}));
vi.mock('@gatewaykit/core', async (original) => ({
  ...(await original<typeof import('@gatewaykit/core')>()),
  gatewayClientFor: () => ({
    transactions: {
      list: () => gateway.list(),
      retrieve: async () => {
        throw new Error('not asked in these tests');
      },
    },
  }),
}));
vi.mock('../src/lib/resolve-options', () => ({ resolveGatewaykitAccounts: () => [ACCOUNT] }));

/**
 * One payment session as the payment module stores it: every read returns a copy, as a database read
 * would, so the run's listing is a snapshot the session can move on from.
 */
function scopeWith(outcome: PaymentOutcome, status: string, options: { updatedDaysAgo?: number } = {}) {
  const stored = {
    id: 'payses_1',
    provider_id: 'pp_gatewaykit_gatewaykit',
    payment_collection_id: 'pc_1',
    amount: 10,
    currency_code: 'usd',
    status,
    authorized_at: null,
    data: {
      orderNo: 'payses_1',
      amount: '10.00',
      currency: 'USD',
      attemptedAt: new Date(Date.now() - 45 * MINUTE).toISOString(),
      outcome,
    } as Record<string, unknown>,
  };
  const copy = () => structuredClone(stored);
  const container = {
    resolve(key: string) {
      if (key === Modules.PAYMENT)
        return {
          // A listing by status reads the last two days only (the session's age: `updatedDaysAgo`).
          listPaymentSessions: async (filter: { id?: string | string[]; status?: string[] }) =>
            [filter.id].flat().includes(stored.id) ||
            (filter.status?.includes(stored.status) && (options.updatedDaysAgo ?? 0) < 2)
              ? [copy()]
              : [],
          updatePaymentSession: async (update: { data: Record<string, unknown>; status?: string }) => {
            stored.data = update.data;
            if (update.status) stored.status = update.status;
            return copy();
          },
          listPayments: async () => [],
        };
      if (key === Modules.CART) return { listCarts: async () => [{ id: 'cart_1', completed_at: null }] };
      if (key === ContainerRegistrationKeys.QUERY)
        return { graph: async () => ({ data: [{ cart_id: 'cart_1' }] }) };
      if (key === Modules.LOCKING) return { execute: (_key: string, work: () => Promise<unknown>) => work() };
      if (key === ContainerRegistrationKeys.LOGGER) return { info() {}, warn() {}, error() {} };
      // No page kept for a deleted session (lib/deleted-pages.ts); the session itself is found by the
      // mark of a failure still to check.
      if (key === ContainerRegistrationKeys.PG_CONNECTION)
        return {
          raw: async (sql: string) => ({
            rows:
              sql.includes("'unpaidOrderCheck' = 'due'") && stored.data.unpaidOrderCheck === 'due'
                ? [{ id: stored.id }]
                : [],
          }),
        };
      throw new Error(`unexpected ${key}`);
    },
  } as unknown as MedusaContainer;
  return { container, stored };
}

/** The gateway lists `listed`; while it is asked, `meanwhile` runs (the late callback's recording). */
function gatewayListing(listed: unknown[], meanwhile: () => Promise<unknown> = async () => undefined) {
  gateway.list = async () => {
    await meanwhile();
    return { list: listed, page: { total: listed.length, pageSize: 100, pageIndex: 1 } };
  };
}

const latePending: PaymentOutcome = {
  orderNo: 'payses_1',
  status: 'pending',
  tradeNo: 'T-late',
  amount: '10.00',
  currency: 'USD',
};
const pageTrade = {
  orderNo: 'payses_1',
  tradeNo: 'T-late',
  tradeDate: '2024-05-01 11:15:02',
  tradeStatus: 'pending',
  tradeInfo: 'Pending',
  tradeAmount: '10.00',
  tradeCurrency: 'USD',
};
const lost: PaymentOutcome = { orderNo: 'payses_1', status: 'unknown', reason: 'the answer was lost' };
const page: PaymentOutcome = { orderNo: 'payses_1', status: 'redirect', redirectUrl: 'https://gw/pay' };

/**
 * The run lists its sessions, then asks the gateway about each in turn: a session answered in between
 * (a late `pending` callback with its trade id) must not be failed from the listing, which would free
 * its cart for a second charge (found by review).
 */
describe('reconciliation of a session answered while the gateway is asked', () => {
  it('attack: listed unanswered, acknowledged meanwhile, no record listed: not failed, the session stays open', async () => {
    const { container, stored } = scopeWith(lost, 'pending');
    gatewayListing([], () => recordOutcome(new SessionAttempts(container, ACCOUNT as never), latePending));
    const report = await reconcileGatewayPayments(container);
    expect(report.attempts).toEqual([
      expect.objectContaining({
        result: 'held-back',
        status: 'pending',
        reason: expect.stringContaining('answered while the gateway was asked'),
      }),
    ]);
    expect(stored.data.outcome).toEqual(latePending);
    expect(stored.status).toBe('pending');
  });

  it('attack: a gateway page answered pending with a trade meanwhile is not failed as expired', async () => {
    const { container, stored } = scopeWith(page, 'requires_more');
    gatewayListing([pageTrade], () =>
      recordOutcome(new SessionAttempts(container, ACCOUNT as never), latePending),
    );
    const report = await reconcileGatewayPayments(container);
    expect(report.attempts).toEqual([expect.objectContaining({ result: 'held-back', status: 'pending' })]);
    expect(stored.data.outcome).toMatchObject({ status: 'pending', tradeNo: 'T-late' });
  });

  it('honest: nothing heard meanwhile: the unanswered session and the expired page end failed', async () => {
    const unanswered = scopeWith(lost, 'pending');
    gatewayListing([]);
    const none = await reconcileGatewayPayments(unanswered.container);
    expect(none.attempts).toEqual([expect.objectContaining({ result: 'changed', status: 'failed' })]);
    expect(unanswered.stored.data.outcome).toMatchObject({ status: 'failed', code: 'NO_GATEWAY_RECORD' });
    expect(unanswered.stored.status).toBe('error');

    const expiring = scopeWith(page, 'requires_more');
    gatewayListing([pageTrade]);
    const expired = await reconcileGatewayPayments(expiring.container);
    expect(expired.attempts).toEqual([expect.objectContaining({ result: 'changed', status: 'failed' })]);
    expect(expiring.stored.data.outcome).toMatchObject({ status: 'failed', code: 'PAGE_EXPIRED' });
  });

  it('a failure whose ORDER NOT PAID check is still due, older than the two days failed sessions are listed for, is found by its mark and checked', async () => {
    const failed: PaymentOutcome = { orderNo: 'payses_1', status: 'failed', reason: 'Declined' };
    const { container, stored } = scopeWith(failed, 'error', { updatedDaysAgo: 5 });
    stored.data.unpaidOrderCheck = 'due';
    const report = await reconcileGatewayPayments(container);
    expect(report.attempts).toEqual([
      expect.objectContaining({
        orderNo: 'payses_1',
        status: 'failed',
        reason: expect.stringMatching(/no order/),
      }),
    ]);
    // Its cart is no order here: checked, and the cart is free again.
    expect(stored.data.unpaidOrderCheck).toBe('not-needed');
  });
});
