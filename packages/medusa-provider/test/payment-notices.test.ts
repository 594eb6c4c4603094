import type { ChargebackEvent, RefundEvent } from '@gatewaykit/core';
import type { MedusaContainer, PaymentSessionDTO } from '@medusajs/framework/types';
import { Modules } from '@medusajs/framework/utils';
import { describe, expect, it } from 'vitest';
import { recordChargeback, settleRefund } from '../src/lib/payment-notices';

/** One captured payment of session ps_1 with one pending refund, and the order of what happens to it. */
function paymentScope() {
  const steps: string[] = [];
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
  const scope = {
    resolve(key: string) {
      if (key !== Modules.PAYMENT) throw new Error(`unexpected ${key}`);
      return {
        listPayments: async () => [payment],
        updatePayment: async (update: { data: Record<string, unknown> }) => {
          steps.push('write');
          payment.data = update.data;
          return payment;
        },
        updatePaymentSession: async (update: { status: string }) => {
          steps.push(`session ${update.status}`);
          session.status = update.status as PaymentSessionDTO['status'];
        },
      };
    },
  } as unknown as MedusaContainer;
  const session = { id: 'ps_1', data: payment.data, status: 'authorized' } as unknown as PaymentSessionDTO;
  return { scope, session, payment, steps };
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
    const { scope, session, payment, steps } = paymentScope();
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
    // Delivered once more: nothing changes, so nothing is given to the alert.
    const again = await settleRefund(scope, session, refundFailed, async () => {
      steps.push('alert');
    });
    expect(again.kind).toBe('duplicate');
    expect(steps).toEqual(['alert', 'alert', 'write']);
  });

  it('a refund made in the merchant portal is kept on the payment and retires the session, once', async () => {
    const { scope, session, payment, steps } = paymentScope();
    const portal: RefundEvent = {
      ...refundFailed,
      status: 'succeeded',
      batchNo: 'P9',
      merTrackNo: undefined,
    };
    delete (portal as { reason?: string }).reason;
    expect((await settleRefund(scope, session, portal)).kind).toBe('no-entry');
    expect(payment.data.refundedAtGateway).toEqual(['P9']);
    expect(steps).toEqual(['session canceled', 'write']);
    expect((await settleRefund(scope, session, portal)).kind).toBe('no-entry');
    expect(steps).toEqual(['session canceled', 'write']);
  });

  it('a chargeback is given to the alert before its write, once', async () => {
    const { scope, session, payment, steps } = paymentScope();
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
