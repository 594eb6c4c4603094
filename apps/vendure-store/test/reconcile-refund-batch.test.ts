/**
 * Which refunds a reconciliation run reads, against the real Vendure server: refunds whose gateway
 * answer was lost have no batchNo and only wait for their notice, so they must not fill every batch
 * and starve the refunds that can be read back (found by review). A batch of 2 here.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileItems } from './support/reconcile';
import { asRefund, paidCardOrder, refundById, refundOrder } from './support/refunds';
import { type Stack, startStack } from './support/stack';

describe('the refunds a reconciliation run reads', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(
      {},
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
});
