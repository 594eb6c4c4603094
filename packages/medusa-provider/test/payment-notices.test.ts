import type { ChargebackEvent, RefundEvent } from '@gatewaykit/core';
import type { MedusaContainer, PaymentSessionDTO } from '@medusajs/framework/types';
import { ContainerRegistrationKeys, Modules } from '@medusajs/framework/utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type GatewayChargeback, type GatewayRefund, withRefund } from '../src/lib/gateway-records';
import { PaymentDataWrites } from '../src/lib/payment-data-writes';
import {
  markRefundAlerted,
  recordChargeback,
  restoreMissingRefunds,
  settleRefund,
} from '../src/lib/payment-notices';

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * One captured payment of session ps_1 with one pending refund, and the order of what happens to it.
 * The payment's data changes only through the in-place writers (lib/payment-data-writes.ts), played
 * here on the object (their SQL runs on a real database in apps/medusa-store's
 * payment-data-in-place.test.ts); a whole copy written through the payment module is recorded as such.
 */
function paymentScope(refundRows: { id: string; created_at: string }[] = []) {
  const steps: string[] = [];
  const db = { raw: vi.fn(), transaction: vi.fn() };
  const payment = {
    id: 'pay_1',
    data: {
      orderNo: 'ps_1',
      amount: '10.00',
      currency: 'USD',
      outcome: { status: 'succeeded', orderNo: 'ps_1', tradeNo: 'T1', amount: '10.00', currency: 'USD' },
      refunds: [
        {
          merTrackNo: 'ref_1',
          batchNo: 'B1',
          amount: '4.00',
          currency: 'USD',
          refundType: 'partial',
          status: 'pending',
          requestedAt: '2026-11-28T10:00:00.000Z',
        },
      ],
    } as Record<string, unknown>,
  };
  const refunds = () => payment.data.refunds as GatewayRefund[] | undefined;
  const written = (what: string, change: Record<string, unknown>) => {
    steps.push(what);
    payment.data = { ...payment.data, ...change };
  };
  const writes = {
    putRefund: vi
      .spyOn(PaymentDataWrites.prototype, 'putRefund')
      .mockImplementation(async (_id, entry) => written('write', { refunds: withRefund(refunds(), entry) })),
    addRefunds: vi.spyOn(PaymentDataWrites.prototype, 'addRefunds').mockImplementation(async (_id, added) => {
      written('write', { refunds: added.reduce((list, entry) => withRefund(list, entry), refunds()) });
      return true;
    }),
    markRefundAlerted: vi
      .spyOn(PaymentDataWrites.prototype, 'markRefundAlerted')
      .mockImplementation(async (_id, merTrackNo, at) =>
        written('write', {
          refunds: refunds()?.map((entry) =>
            entry.merTrackNo === merTrackNo ? { ...entry, alertedAt: at } : entry,
          ),
        }),
      ),
    addChargeback: vi
      .spyOn(PaymentDataWrites.prototype, 'addChargeback')
      .mockImplementation(async (_id, chargeback) =>
        written('write', {
          chargebacks: [...((payment.data.chargebacks as GatewayChargeback[] | undefined) ?? []), chargeback],
        }),
      ),
    addUncountedRefunds: vi
      .spyOn(PaymentDataWrites.prototype, 'addUncountedRefunds')
      .mockImplementation(async (_id, keys) => written('write', { refundedAtGateway: [...keys] })),
  };
  const scope = {
    resolve(key: string) {
      if (key === ContainerRegistrationKeys.PG_CONNECTION) return db;
      if (key !== Modules.PAYMENT) throw new Error(`unexpected ${key}`);
      return {
        listPayments: async () => [payment],
        listRefunds: async (filters: { id?: string }) =>
          refundRows
            .filter((row) => !filters.id || row.id === filters.id)
            .map((row) => ({ ...row, amount: 3 })),
        updatePayment: async () => {
          steps.push('whole write');
        },
        updatePaymentSession: async (update: { status: string }) => {
          steps.push(`session ${update.status}`);
          session.status = update.status as PaymentSessionDTO['status'];
        },
      };
    },
  } as unknown as MedusaContainer;
  const session = { id: 'ps_1', data: payment.data, status: 'authorized' } as unknown as PaymentSessionDTO;
  return { scope, session, payment, steps, writes };
}

const refundFailed: RefundEvent = {
  kind: 'refund',
  status: 'failed',
  batchNo: 'B1',
  merTrackNo: 'ref_1',
  tradeNo: 'T1',
  orderNo: 'ps_1',
  amount: '4.00',
  currency: 'USD',
  reason: 'card closed',
};

const chargeback: ChargebackEvent = {
  kind: 'chargeback',
  batchNo: 'CB1',
  tradeNo: 'T1',
  orderNo: 'ps_1',
  amount: '10.00',
  currency: 'USD',
  reason: 'D4755-Non-Receipt of Goods or Services',
};

describe('notices that call for an alert: said before they are stored', () => {
  it('a refund now failed is given to the alert before its write; an alert that fails leaves it unwritten, so the next delivery says it again', async () => {
    const { scope, session, payment, steps, writes } = paymentScope();
    const refused = settleRefund(scope, session, refundFailed, async () => {
      steps.push('alert');
      throw new Error('the process died here');
    });
    await expect(refused).rejects.toThrow('the process died here');
    expect(steps).toEqual(['alert']);
    expect((payment.data.refunds as { status: string }[])[0]?.status).toBe('pending');

    const alerted: string[] = [];
    const settled = await settleRefund(scope, session, refundFailed, async (change) => {
      steps.push('alert');
      alerted.push(`${change.entry.merTrackNo} ${change.entry.status}`);
    });
    expect(settled).toMatchObject({ kind: 'changed', entry: { status: 'failed', reason: 'card closed' } });
    expect(steps).toEqual(['alert', 'alert', 'write']);
    expect(alerted).toEqual(['ref_1 failed']);
    // The settled entry alone, in place: the rest of the data is not written back.
    expect(writes.putRefund.mock.calls).toEqual([
      ['pay_1', expect.objectContaining({ merTrackNo: 'ref_1', status: 'failed', reason: 'card closed' })],
    ]);
    // Delivered once more: nothing changes, so nothing is given to the alert.
    const again = await settleRefund(scope, session, refundFailed, async () => {
      steps.push('alert');
    });
    expect(again.kind).toBe('duplicate');
    expect(steps).toEqual(['alert', 'alert', 'write']);
  });

  it('a refund made in the merchant portal is kept on the payment and retires the session, once', async () => {
    const { scope, session, payment, steps, writes } = paymentScope();
    const portal: RefundEvent = {
      ...refundFailed,
      status: 'succeeded',
      batchNo: 'P9',
      merTrackNo: undefined,
    };
    delete (portal as { reason?: string }).reason;
    expect((await settleRefund(scope, session, portal)).kind).toBe('no-entry');
    expect(payment.data.refundedAtGateway).toEqual(['P9']);
    expect(writes.addUncountedRefunds.mock.calls).toEqual([['pay_1', ['P9']]]);
    expect(steps).toEqual(['session canceled', 'write']);
    expect((await settleRefund(scope, session, portal)).kind).toBe('no-entry');
    expect(steps).toEqual(['session canceled', 'write']);
  });

  it('a chargeback is given to the alert before its write, once', async () => {
    const { scope, session, payment, steps, writes } = paymentScope();
    await expect(
      recordChargeback(scope, session, chargeback, async () => {
        steps.push('alert');
        throw new Error('the process died here');
      }),
    ).rejects.toThrow('the process died here');
    expect(payment.data.chargebacks).toBeUndefined();

    const first = await recordChargeback(scope, session, chargeback, async (ref) => {
      steps.push(`alert ${ref.paymentId}`);
    });
    expect(first.added).toBe(true);
    expect(writes.addChargeback.mock.calls).toEqual([
      ['pay_1', expect.objectContaining({ batchNo: 'CB1', tradeNo: 'T1', amount: '10.00' })],
    ]);
    // Money given back retires the session, under the cart lock: a completion queued behind the notice
    // finds no payable session.
    expect(steps).toEqual(['alert', 'alert pay_1', 'session canceled', 'write']);
    const repeated = await recordChargeback(scope, session, chargeback, async () => {
      steps.push('alert');
    });
    expect(repeated.added).toBe(false);
    expect(steps).toEqual(['alert', 'alert pay_1', 'session canceled', 'write']);
  });
});

describe('notices write the payment data in place: only what they change', () => {
  const NOW = new Date('2026-11-28T12:00:00.000Z');

  it('a refund reported unsettled is marked on its own entry, once; no other entry and no whole copy is written', async () => {
    const { scope, session, payment, steps, writes } = paymentScope();
    await markRefundAlerted(scope, session, 'ref_1', NOW);
    expect(writes.markRefundAlerted.mock.calls).toEqual([['pay_1', 'ref_1', NOW.toISOString()]]);
    expect((payment.data.refunds as GatewayRefund[])[0]?.alertedAt).toBe(NOW.toISOString());
    await markRefundAlerted(scope, session, 'ref_1', new Date('2026-11-29T12:00:00.000Z'));
    await markRefundAlerted(scope, session, 'ref_unknown', NOW);
    expect(writes.markRefundAlerted).toHaveBeenCalledTimes(1);
    expect(steps).toEqual(['write']);
  });

  it('refund rows the data lost are added back as unknown, only those old enough; nothing else is written', async () => {
    const { scope, session, payment, steps, writes } = paymentScope([
      { id: 'ref_1', created_at: '2026-11-28T10:00:00.000Z' },
      { id: 'ref_lost', created_at: '2026-11-28T11:00:00.000Z' },
      { id: 'ref_young', created_at: '2026-11-28T11:55:00.000Z' },
    ]);
    const restored = await restoreMissingRefunds(scope, session, NOW);
    const lost = {
      merTrackNo: 'ref_lost',
      amount: '3.00',
      currency: 'USD',
      refundType: '2',
      status: 'unknown',
      requestedAt: '2026-11-28T11:00:00.000Z',
    };
    expect(restored).toEqual([lost]);
    expect(writes.addRefunds.mock.calls).toEqual([['pay_1', [lost]]]);
    expect((payment.data.refunds as GatewayRefund[]).map((entry) => entry.merTrackNo)).toEqual([
      'ref_1',
      'ref_lost',
    ]);
    // Run again: nothing is missing, nothing is written.
    expect(await restoreMissingRefunds(scope, session, NOW)).toEqual([]);
    expect(steps).toEqual(['write']);
  });

  it('a refund whose Medusa row the data lost is settled by its notice: the rebuilt entry is added, settled', async () => {
    const { scope, session, payment, writes } = paymentScope([
      { id: 'ref_lost', created_at: '2026-11-28T11:00:00.000Z' },
    ]);
    const settled = await settleRefund(
      scope,
      session,
      { ...refundFailed, status: 'succeeded', merTrackNo: 'ref_lost', batchNo: 'B7', amount: '3.00' },
      async () => {},
      NOW,
    );
    expect(settled.kind).toBe('changed');
    expect(writes.putRefund.mock.calls).toEqual([
      ['pay_1', expect.objectContaining({ merTrackNo: 'ref_lost', batchNo: 'B7', status: 'succeeded' })],
    ]);
    expect((payment.data.refunds as GatewayRefund[]).map((entry) => entry.merTrackNo)).toEqual([
      'ref_1',
      'ref_lost',
    ]);
  });
});
