import { describe, expect, it } from 'vitest';
import { adminOrder, adminTokenFor } from './support/admin';
import { adminFeed, adminPayment, paidOrder, raiseChargeback, sandboxRefunds } from './support/payments';
import { serverLogSoFar } from './support/server-log';
import { api, expectOk } from './support/store-api';
import { waitFor } from './support/wait';

const ALERT = 'ORDER CANCELED, NOT REFUNDED';

/** Cancels the order as the admin, and waits until the plugin's check of its refunds has run. */
async function cancel(orderId: string) {
  await expectOk(api('POST', `/admin/orders/${orderId}/cancel`, { token: await adminTokenFor() }));
  await waitFor(
    async () => (await serverLogSoFar()).includes(`gatewaykit: order ${orderId} canceled:`),
    "the plugin's check of the canceled order",
  );
  return adminOrder(orderId);
}

/** The alerts about one order in the server's log (each names the order's id right after the tag). */
async function cancelAlertsOf(orderId: string): Promise<number> {
  const log = await serverLogSoFar();
  return log
    .split(`${ALERT}: Order `)
    .slice(1)
    .filter((text) => text.slice(0, 60).includes(orderId)).length;
}

describe("canceling a paid order (Medusa's cancel refunds its captured payments)", () => {
  it('the captured payment is refunded at the gateway in full, and nothing is alerted', async () => {
    const paid = await paidOrder();
    const amount = (await adminPayment(paid.paymentId)).data.outcome.amount as string;
    const canceled = await cancel(paid.orderId);
    expect(canceled.status).toBe('canceled');
    expect((await sandboxRefunds(paid.tradeNo)).map((refund) => refund.refundAmount)).toEqual([amount]);
    expect(await cancelAlertsOf(paid.orderId)).toBe(0);
  });

  it('a cancel whose refund the plugin refuses (a chargeback took the money back) is alerted once, and nothing reaches the gateway', async () => {
    const paid = await paidOrder();
    const amount = (await adminPayment(paid.paymentId)).data.outcome.amount as string;
    const raised = await raiseChargeback(paid, amount);

    // Medusa logs the refused refund and cancels the order all the same, showing it refunded.
    const canceled = await cancel(paid.orderId);
    expect(canceled.status).toBe('canceled');
    expect(await sandboxRefunds(paid.tradeNo)).toEqual([]);
    expect((await adminPayment(paid.paymentId)).refunds ?? []).toEqual([]);
    expect(await cancelAlertsOf(paid.orderId)).toBe(1);
    // The admin's feed says it too.
    const feed = await adminFeed();
    const at = feed.indexOf(paid.orderId, feed.indexOf('Canceled order not refunded at the gateway'));
    expect(at).toBeGreaterThan(-1);
    const alert = feed.slice(at, at + 1200);
    expect(alert).toContain(paid.tradeNo);
    expect(alert).toContain(`${Number(amount)} USD`);
    expect(alert).toContain(`chargebacks (${raised.batchNo})`);
  });
});
