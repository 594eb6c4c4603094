/**
 * What a reconciliation run reads, against the real Vendure server, with a batch of 2: payments that
 * stay owed run after run, and refunds whose gateway answer was lost (no batchNo, they only wait for
 * their notice), must not fill every batch and starve a newer payment or a refund that can be read back
 * (both found by review).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileItems } from './support/reconcile';
import { asRefund, paidCardOrder, refundById, refundOrder } from './support/refunds';
import { adminOrder, CARDS, cardInput, prepareOrder, startPayment } from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';

describe('what a reconciliation run reads', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(
      // A pending card charge stays pending at the gateway for the whole file (10 virtual hours).
      { pendingDelayMs: 10 * 60 * 60 * 1000 },
      {
        GATEWAYKIT_RECONCILE_AFTER_MS: '0',
        GATEWAYKIT_RECONCILE_BATCH_SIZE: '2',
        GATEWAYKIT_RECONCILE_SCHEDULE: '0 0 1 1 *',
      },
    );
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('attack: more refunds without a batchNo than a batch, older than one with, do not starve it', async () => {
    const paid = [];
    for (let n = 0; n < 4; n++) paid.push(await paidCardOrder(stack));
    // Every notice is lost from here on.
    stack.sandbox.setChaos({ drop: true });
    for (const { payment } of paid.slice(0, 3)) {
      stack.sandbox.addFault({ route: 'createRefund', kind: 'commit-then-drop' });
      expect(asRefund(await refundOrder(stack.admin, payment.id, 100))).toMatchObject({ transactionId: '' });
    }
    stack.sandbox.clearFaults();
    const { order, payment } = paid[3]!;
    stack.sandbox.addRefundOutcome({ outcome: 'pending' });
    const numbered = asRefund(await refundOrder(stack.admin, payment.id, 100));
    expect(numbered.transactionId).not.toBe('');
    expect(numbered.state).toBe('Pending');
    stack.sandbox.settleRefund(numbered.transactionId ?? '', { status: 'success' });

    const items = (await reconcileItems(stack.admin)).filter((item) => item.kind === 'refund');
    expect(items.find((item) => item.reference === numbered.transactionId)).toMatchObject({
      orderCode: order.code,
      after: 'Settled',
    });
    expect(items).toHaveLength(2);
    expect((await refundById(stack.admin, order.id, numbered.id)).state).toBe('Settled');
  });

  it('attack: more payments that stay owed than a batch, older than one whose success callback was lost, do not keep it from being read', async () => {
    const pay = async (cardNo: string) => {
      const shop = shopClient(stack);
      const order = await prepareOrder(shop);
      return {
        order,
        started: await startPayment(shop, { paymentMethodCode: 'gatewaykit-card', card: cardInput(cardNo) }),
      };
    };
    // Every callback is lost from here on: only the runs' reads of the gateway settle anything.
    stack.sandbox.setChaos({ drop: true });
    try {
      // Three charges the gateway still lists as pending: each run reads them and leaves them owed.
      const stuck = [];
      for (let n = 0; n < 3; n++) {
        const { order, started } = await pay(CARDS.pendingThenSuccess);
        expect(started.__typename).toBe('GatewaykitPaymentPending');
        stuck.push(`${order.code}-1`);
      }
      // Then a charge the gateway took whose answer was lost: only a run's read settles its order.
      stack.sandbox.addFault({ route: 'confirmCharge', kind: 'commit-then-drop' });
      const { order, started } = await pay(CARDS.success);
      expect(started.__typename).toBe('GatewaykitPaymentPending');
      const lost = `${order.code}-1`;
      expect(stack.sandbox.order(lost)?.orderStatus).toBe('success');

      const attemptsRead = async () =>
        (await reconcileItems(stack.admin))
          .filter((item) => item.kind === 'attempt')
          .map((item) => item.reference);
      expect(await attemptsRead()).toEqual(stuck.slice(0, 2));
      expect(await attemptsRead()).toEqual([stuck[2], lost]);
      const paid = await adminOrder(stack.admin, order.id);
      expect(paid.state).toBe('PaymentSettled');
      expect(paid.payments.map((payment) => payment.state)).toEqual(['Settled']);
      // Then round again, those read longest ago first.
      expect(await attemptsRead()).toEqual(stuck.slice(0, 2));
    } finally {
      stack.sandbox.setChaos({});
      stack.sandbox.clearFaults();
    }
  });
});
