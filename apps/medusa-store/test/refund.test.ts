import { randomUUID } from 'node:crypto';
import { GatewayClient } from '@gatewaykit/core';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { adminOrder } from './support/admin';
import { GATEWAY_NO, SIGN_KEY } from './support/global-setup';
import {
  adminFeed,
  adminPayment,
  adminRefund,
  deliveriesOfBatch,
  paidOrder,
  refundEntryWhen,
  sandboxRefunds,
} from './support/payments';
import { sandboxControl } from './support/sandbox-pages';
import { serverLogSoFar } from './support/server-log';
import type { Json } from './support/store-api';
import { waitFor } from './support/wait';

afterEach(async () => {
  await sandboxControl('chaos', undefined, 'DELETE');
  await sandboxControl('refunds/next', undefined, 'DELETE');
});

/** Waits until every notice of a refund was answered `success` by Medusa. */
async function acknowledged(batchNo: string, count = 1) {
  return waitFor(async () => {
    const list = await deliveriesOfBatch(batchNo);
    return list.length >= count && list.every((delivery) => delivery.state === 'delivered') && list;
  }, `the notices of refund ${batchNo} to be acknowledged`);
}

describe('refunds through the gateway', () => {
  it('pay, full refund from the admin API: the gateway refunds the trade, its notification confirms it, the order is refunded', async () => {
    const paid = await paidOrder();
    const refund = await adminRefund(paid.paymentId, paid.total);
    expect(refund.status).toBe(200);
    expect(refund.refundId).toBeDefined();

    // One refund at the gateway: the whole trade, named by Medusa's refund id.
    const [gateway, ...others] = await sandboxRefunds(paid.tradeNo);
    expect(others).toEqual([]);
    expect(gateway).toMatchObject({
      merTrackNo: refund.refundId,
      refundType: '1',
      refundAmount: '60.00',
      refundStatus: 'success',
    });
    const [notice] = await acknowledged(gateway!.batchNo);
    expect(notice!.type).toBe('refund.success');

    const entry = await refundEntryWhen(paid.paymentId, refund.refundId!, 'succeeded');
    expect(entry).toMatchObject({
      batchNo: gateway!.batchNo,
      amount: '60.00',
      currency: 'USD',
      refundType: '1',
    });
    const order = await adminOrder(paid.orderId);
    expect(order.payment_status).toBe('refunded');
  });

  it('a refund the gateway leaves pending is settled by its refund.success notification', async () => {
    const paid = await paidOrder();
    await sandboxControl('refunds/next', { outcome: 'pending' });
    const refund = await adminRefund(paid.paymentId, 10);
    expect(refund.status).toBe(200);
    const [gateway] = await sandboxRefunds(paid.tradeNo);
    expect(gateway).toMatchObject({ merTrackNo: refund.refundId, refundType: '2', refundStatus: 'pending' });
    expect((await adminPayment(paid.paymentId)).data.refunds).toEqual([
      expect.objectContaining({ merTrackNo: refund.refundId, status: 'pending', batchNo: gateway!.batchNo }),
    ]);

    await sandboxControl(`refunds/${gateway!.batchNo}/settle`, { status: 'success' });
    await acknowledged(gateway!.batchNo);
    await refundEntryWhen(paid.paymentId, refund.refundId!, 'succeeded');
    expect((await adminOrder(paid.orderId)).payment_status).toBe('partially_refunded');
  });

  it('two partial refunds, then an over-refund is refused with a clear error, by Medusa and by the gateway', async () => {
    const paid = await paidOrder();
    const first = await adminRefund(paid.paymentId, 5);
    const second = await adminRefund(paid.paymentId, 3);
    expect([first.status, second.status]).toEqual([200, 200]);
    const gateway = await sandboxRefunds(paid.tradeNo);
    expect(gateway.map((row) => [row.merTrackNo, row.refundType, row.refundAmount])).toEqual([
      [first.refundId, '2', '5.00'],
      [second.refundId, '2', '3.00'],
    ]);
    await refundEntryWhen(paid.paymentId, first.refundId!, 'succeeded');
    await refundEntryWhen(paid.paymentId, second.refundId!, 'succeeded');
    expect((await adminOrder(paid.orderId)).payment_status).toBe('partially_refunded');

    // More than what is left in Medusa: refused before the gateway is asked.
    const tooMuch = await adminRefund(paid.paymentId, paid.total - 8 + 1);
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.message).toMatch(/not allowed to refund more than the captured amount/);
    expect(await sandboxRefunds(paid.tradeNo)).toHaveLength(2);

    // 2.00 refunded in the merchant portal, its notice late: the gateway refuses what Medusa still
    // thinks is left.
    await sandboxControl('chaos', { drop: true });
    const portal = new GatewayClient({
      gatewayNo: GATEWAY_NO,
      signKey: SIGN_KEY,
      baseUrl: inject('sandboxUrl'),
    });
    const portalTrackNo = `portal-${randomUUID().slice(0, 8)}`;
    const { batchNo: portalBatchNo } = await portal.refunds.create({
      merTrackNo: portalTrackNo,
      refundAmount: '2.00',
      refundReason: 'refunded in the portal',
      refundType: '2',
      tradeNo: paid.tradeNo,
    });
    const refused = await adminRefund(paid.paymentId, paid.total - 8);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(
      `The gateway refused the refund of 52.00 USD: P0001 request param error: refundAmount 52.00 USD is more than the 50.00 USD left to refund on tradeNo ${paid.tradeNo}. No refund was recorded.`,
    );
    expect(refused.refundId).toBeUndefined();
    const payment = await adminPayment(paid.paymentId);
    expect(payment.refunds).toHaveLength(2);
    expect(payment.data.refunds).toHaveLength(2);
    // The portal's refund, its notice delivered now, is reported, not applied: Medusa holds no such refund.
    await sandboxControl('chaos', undefined, 'DELETE');
    const late = await waitFor(async () => {
      const kept = await deliveriesOfBatch(portalBatchNo);
      return kept.length > 0 && kept;
    }, 'the portal refund notice, kept by the sandbox');
    for (const delivery of late) await sandboxControl(`callbacks/${delivery.id}/redeliver`, {});
    await waitFor(
      async () => (await adminFeed()).includes(portalTrackNo),
      'the portal refund to be reported',
    );
    expect(await serverLogSoFar()).toMatch(new RegExp(`REFUND NOT IN MEDUSA: .*${portalTrackNo}`));
    // Known now, it blocks every refund through Medusa, which does not count it; nothing is sent.
    const sentBefore = (await sandboxRefunds(paid.tradeNo)).length;
    const blocked = await adminRefund(paid.paymentId, 1);
    expect(blocked.status).toBe(400);
    expect(blocked.body.message).toContain(
      `the payment was refunded outside the store (batchNo ${portalBatchNo})`,
    );
    expect(await sandboxRefunds(paid.tradeNo)).toHaveLength(sentBefore);
  });

  it('a refund notification that was lost is applied when the gateway delivers it again', async () => {
    const paid = await paidOrder();
    await sandboxControl('refunds/next', { outcome: 'pending' });
    const refund = await adminRefund(paid.paymentId, 7);
    const [gateway] = await sandboxRefunds(paid.tradeNo);
    await sandboxControl('chaos', { drop: true });
    await sandboxControl(`refunds/${gateway!.batchNo}/settle`, { status: 'success' });
    const [dropped] = await waitFor(async () => {
      const list = await deliveriesOfBatch(gateway!.batchNo);
      return list.length > 0 && list;
    }, 'the refund notice to be recorded');
    expect(dropped!.state).toBe('dropped');
    expect((await adminPayment(paid.paymentId)).data.refunds[0].status).toBe('pending');

    await sandboxControl(`callbacks/${dropped!.id}/redeliver`, {});
    await acknowledged(gateway!.batchNo);
    await refundEntryWhen(paid.paymentId, refund.refundId!, 'succeeded');
  });

  it('duplicate refund notifications change nothing', async () => {
    const paid = await paidOrder();
    await sandboxControl('refunds/next', { outcome: 'pending' });
    const refund = await adminRefund(paid.paymentId, 4);
    const [gateway] = await sandboxRefunds(paid.tradeNo);
    await sandboxControl('chaos', { copies: 5 });
    await sandboxControl(`refunds/${gateway!.batchNo}/settle`, { status: 'success' });
    const deliveries = await acknowledged(gateway!.batchNo, 5);
    expect(deliveries).toHaveLength(5);
    const settled = await refundEntryWhen(paid.paymentId, refund.refundId!, 'succeeded');

    await sandboxControl(`callbacks/${deliveries[0]!.id}/redeliver`, {});
    const redelivered = await waitFor(async () => {
      const [again] = (await deliveriesOfBatch(gateway!.batchNo)).filter((d) => d.id === deliveries[0]!.id);
      return (again?.attempts.length ?? 0) >= 2 && again;
    }, 'the manual redelivery');
    expect(redelivered.attempts.at(-1)?.response).toBe('success');
    const payment = await adminPayment(paid.paymentId);
    expect(payment.data.refunds).toEqual([settled]);
    expect(payment.refunds).toHaveLength(1);
    expect((await adminOrder(paid.orderId)).payment_status).toBe('partially_refunded');
  });

  it('a refund that fails at the gateway after Medusa recorded it is shown failed and alerted', async () => {
    const paid = await paidOrder();
    await sandboxControl('refunds/next', { outcome: 'pending' });
    const refund = await adminRefund(paid.paymentId, 6);
    expect(refund.status).toBe(200);
    const [gateway] = await sandboxRefunds(paid.tradeNo);
    await sandboxControl(`refunds/${gateway!.batchNo}/settle`, {
      status: 'fail',
      reason: 'Merchant balance too low',
    });
    await acknowledged(gateway!.batchNo);
    const entry = await refundEntryWhen(paid.paymentId, refund.refundId!, 'failed');
    expect(entry.reason).toBe('Merchant balance too low');
    const feed = await adminFeed();
    expect(feed).toContain('Gateway refund failed');
    expect(feed).toMatch(
      new RegExp(
        `Refund ${refund.refundId} \\(batchNo ${gateway!.batchNo}\\) of 6.00 USD .* failed at the gateway: Merchant balance too low\\. The order shows it refunded`,
      ),
    );
    expect(await serverLogSoFar()).toContain(`REFUND FAILED: Refund ${refund.refundId}`);
  });

  it('a refund the gateway declines at once is refused and leaves no refund in Medusa', async () => {
    const paid = await paidOrder();
    await sandboxControl('refunds/next', { outcome: 'fail', reason: 'Refund declined by the acquirer' });
    const refund = await adminRefund(paid.paymentId, 6);
    expect(refund.status).toBe(400);
    expect(refund.body.message).toMatch(
      /The gateway declined the refund of 6\.00 USD \(batchNo R\d+\); no refund was recorded/,
    );
    const payment = await adminPayment(paid.paymentId);
    expect(payment.refunds ?? []).toEqual([]);
    expect(payment.data.refunds ?? []).toEqual([]);
    expect((await adminOrder(paid.orderId)).payment_status).toBe('captured');
    // Its refund.fail notice finds nothing to change.
    const [gateway] = await sandboxRefunds(paid.tradeNo);
    await acknowledged(gateway!.batchNo);
    expect((await adminPayment(paid.paymentId)).data.refunds ?? []).toEqual([]);
  });

  it('a refund whose answer is lost is kept as unknown, never sent again, and its notification settles it', async () => {
    const paid = await paidOrder();
    await sandboxControl('faults', { route: 'createRefund', kind: 'commit-then-drop' });
    try {
      const refund = await adminRefund(paid.paymentId, 9);
      expect(refund.status).toBe(200);
      const gateway = await sandboxRefunds(paid.tradeNo);
      expect(gateway).toHaveLength(1);
      expect(gateway[0]!.merTrackNo).toBe(refund.refundId);
      // The notice may already have settled it; either way it is never sent twice.
      const entry = await refundEntryWhen(paid.paymentId, refund.refundId!, 'succeeded');
      expect(entry.batchNo).toBe(gateway[0]!.batchNo);
      const requests = (await sandboxControl('requests')) as Json[];
      expect(
        requests.filter(
          (r) => r.operation === 'createRefund' && JSON.stringify(r).includes(refund.refundId!),
        ),
      ).toHaveLength(1);
    } finally {
      await sandboxControl('faults', undefined, 'DELETE');
    }
  });
});
