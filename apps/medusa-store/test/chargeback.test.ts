import { afterEach, describe, expect, it } from 'vitest';
// The order widget's own reading of the order (what the admin page shows).
import { gatewaySummaries } from '../../../packages/medusa-provider/src/admin/lib/gateway-summary';
import { adminOrder } from './support/admin';
import { GATEWAY_NO, SECOND_GATEWAY_NO } from './support/global-setup';
import {
  adminFeed,
  adminPayment,
  adminRefund,
  deliveriesOfBatch,
  paidOrder,
  raiseChargeback,
  reconcileNow,
  redeliverAgain,
  redeliverLate,
  sandboxRefunds,
} from './support/payments';
import { sandboxControl } from './support/sandbox-pages';
import { serverLogSoFar } from './support/server-log';
import { waitFor } from './support/wait';

afterEach(async () => {
  await sandboxControl('chaos', undefined, 'DELETE');
});

describe('chargebacks', () => {
  it('each run asks the gateway for the chargebacks of every account, except one set to chargebackLookbackDays 0', async () => {
    const chargebackListings = async () =>
      ((await sandboxControl('requests')) as { path: string; gatewayNo?: string }[]).filter((request) =>
        request.path.includes('/chargebacks'),
      );
    const before = await chargebackListings();
    const { status } = await reconcileNow({ orderNos: ['no-such-order'] });
    expect(status).toBe(200);
    const asked = (await chargebackListings()).slice(before.length);
    // The first account: 180 days in 30-day slices; the second (0 days): nothing.
    expect(asked.filter((request) => request.gatewayNo === GATEWAY_NO).length).toBeGreaterThanOrEqual(7);
    expect(asked.filter((request) => request.gatewayNo === SECOND_GATEWAY_NO)).toEqual([]);
  });

  it("a chargeback whose every notice was lost is recorded by the reconciliation from the gateway's list and alerted once; the notice delivered late adds nothing", async () => {
    const paid = await paidOrder();
    await sandboxControl('chaos', { drop: true });
    const raised = (await sandboxControl('chargebacks', {
      tradeNo: paid.tradeNo,
      amount: '25.00',
      reason: 'D4837-No Cardholder Authorization',
    })) as { batchNo: string; replyDeadline: string };
    const [lost] = await waitFor(async () => {
      const kept = await deliveriesOfBatch(raised.batchNo);
      return kept.length > 0 && kept;
    }, 'the chargeback notice, kept by the sandbox');
    const chargebacksOnPayment = async () =>
      (await adminOrder(paid.orderId)).payment_collections[0].payments[0].data.chargebacks;
    expect(await chargebacksOnPayment()).toBeUndefined();

    const { status, body } = await reconcileNow({ orderNos: [paid.orderNo] });
    expect(status).toBe(200);
    expect(body.chargebacks).toEqual([
      expect.objectContaining({ orderNo: paid.orderNo, batchNo: raised.batchNo, result: 'recorded' }),
    ]);
    expect(await chargebacksOnPayment()).toEqual([
      expect.objectContaining({
        batchNo: raised.batchNo,
        tradeNo: paid.tradeNo,
        amount: '25.00',
        currency: 'USD',
        reason: 'D4837-No Cardholder Authorization',
        replyDeadline: raised.replyDeadline,
      }),
    ]);
    await waitFor(
      async () => (await adminFeed()).includes(`Chargeback ${raised.batchNo}`),
      'the chargeback in the admin feed',
    );
    const alerts = (log: string) => log.split(`CHARGEBACK: Chargeback ${raised.batchNo}`).length - 1;
    expect(alerts(await serverLogSoFar())).toBe(1);

    // A second run, and the lost notice delivered late: nothing added, nothing said again.
    expect((await reconcileNow({ orderNos: [paid.orderNo] })).body.chargebacks).toEqual([]);
    const late = await redeliverLate(lost!.id, raised.batchNo);
    expect(late.attempts.at(-1)?.response).toBe('success');
    expect(await chargebacksOnPayment()).toHaveLength(1);
    expect(alerts(await serverLogSoFar())).toBe(1);
  });

  it('a chargeback raised at the gateway appears on the order (reason, amount, reply deadline) and is alerted once', async () => {
    const paid = await paidOrder();
    const raised = (await sandboxControl('chargebacks', {
      tradeNo: paid.tradeNo,
      amount: '60.00',
      reason: 'D4755-Non-Receipt of Goods or Services',
    })) as { batchNo: string; replyDeadline: string; cpdDate: string };
    expect(raised.batchNo).toBeTruthy();
    const [notice] = await waitFor(async () => {
      const list = await deliveriesOfBatch(raised.batchNo);
      return list.length > 0 && list.every((delivery) => delivery.state === 'delivered') && list;
    }, 'the chargeback notice to be acknowledged');
    expect(notice!.type).toBe('chargeback.success');

    const order = await adminOrder(paid.orderId);
    expect(order.payment_collections[0].payments[0].data.chargebacks).toEqual([
      expect.objectContaining({
        batchNo: raised.batchNo,
        tradeNo: paid.tradeNo,
        amount: '60.00',
        currency: 'USD',
        reason: 'D4755-Non-Receipt of Goods or Services',
        replyDeadline: raised.replyDeadline,
      }),
    ]);
    expect(gatewaySummaries(order)[0]!.chargebacks).toEqual([
      {
        amount: '60.00 USD',
        reason: 'D4755-Non-Receipt of Goods or Services',
        replyDeadline: raised.replyDeadline,
        batchNo: raised.batchNo,
      },
    ]);
    // The payment itself is unchanged: a chargeback is the merchant's to answer, not a payment status.
    expect(order.payment_status).toBe('captured');
    expect(await adminFeed()).toContain(`Chargeback ${raised.batchNo} of 60.00 USD`);
    expect(await serverLogSoFar()).toContain(`CHARGEBACK: Chargeback ${raised.batchNo}`);

    // The same notice again adds nothing.
    const repeated = await redeliverAgain(notice!.id, raised.batchNo);
    expect(repeated.attempts.at(-1)?.response).toBe('success');
    const after = await adminOrder(paid.orderId);
    expect(after.payment_collections[0].payments[0].data.chargebacks).toHaveLength(1);
  });

  it('attack: a refund of money a chargeback already returned is refused and nothing reaches the gateway; the undisputed rest can be refunded', async () => {
    const paid = await paidOrder();
    const amount = (await adminPayment(paid.paymentId)).data.outcome.amount as string;
    // Disputed: all but 5.00 of the payment.
    const disputed = (Number(amount) - 5).toFixed(2);
    const raised = await raiseChargeback(paid, disputed);
    const refused = await adminRefund(paid.paymentId, 5.01);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(refused.body)).toContain(
      `charged back (chargeback ${raised.batchNo}): the cardholder's bank has already returned that money, so only 5.00 USD is left to refund, not 5.01 USD`,
    );
    expect(refused.refundId).toBeUndefined();
    expect(await sandboxRefunds(paid.tradeNo)).toEqual([]);
    expect((await adminPayment(paid.paymentId)).refunds ?? []).toEqual([]);
    // What the chargeback left: refunded at the gateway as usual.
    const rest = await adminRefund(paid.paymentId, 5);
    expect(rest.status).toBe(200);
    expect((await sandboxRefunds(paid.tradeNo)).map((r) => r.refundAmount)).toEqual(['5.00']);
  });
});
