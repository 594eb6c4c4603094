import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANTS } from '../src/gateways';
import { callbackUrl, deliveredCallbacks, postSignedCallback } from './support/callbacks';
import { paymentsWithRefunds } from './support/refunds';
import { adminOrder, completeRedirect, eventually, prepareOrder, startPayment } from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';

describe('hosted checkout through the real server and sandbox', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('pays an order on the hosted page: one Settled payment, order PaymentSettled, shopper sent to the order page', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const started = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    expect(started.__typename).toBe('GatewaykitPaymentRedirect');
    if (started.__typename !== 'GatewaykitPaymentRedirect') return;
    expect(started.orderNo).toBe(`${order.code}-1`);

    // While the shopper is on the hosted page the order waits in ArrangingPayment with no payment.
    const waiting = await adminOrder(stack.admin, order.id);
    expect(waiting.state).toBe('ArrangingPayment');
    expect(waiting.payments).toHaveLength(0);

    const back = await completeRedirect(started.url, 'success');
    expect(back.returnStatus).toBe(303);
    expect(back.storefrontLocation).toContain(`/order-confirmation/${order.code}`);
    expect(back.storefrontLocation).toContain('payment=succeeded');

    await deliveredCallbacks(stack.sandbox, started.orderNo);
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments).toHaveLength(1);
    const [payment] = paid.payments;
    const gatewayOrder = stack.sandbox.order(started.orderNo);
    expect(payment?.state).toBe('Settled');
    expect(payment?.amount).toBe(order.totalWithTax);
    expect(payment?.transactionId).toBe(gatewayOrder?.tradeNo);
    expect(gatewayOrder?.orderAmount).toBe((order.totalWithTax / 100).toFixed(2));
    // The shopper sees only the public part of the payment metadata.
    const { orderByCode } = await shop.query<{
      orderByCode: { payments: { metadata: Record<string, unknown> }[] };
    }>(`query ($code: String!) { orderByCode(code: $code) { payments { metadata } } }`, { code: order.code });
    const shopMetadata = orderByCode.payments[0]?.metadata ?? {};
    expect(Object.keys(shopMetadata)).toEqual(['public']);
    expect(Object.keys(shopMetadata.public as object).sort()).toEqual([
      'maskCardNo',
      'mode',
      'orderNo',
      'status',
    ]);
    // The callback after the return was acknowledged as a duplicate.
    const delivered = stack.sandbox.callbacks().filter((c) => c.orderNo === started.orderNo);
    expect(delivered.every((c) => c.attempts.at(-1)?.response === 'success')).toBe(true);
  });

  it('an abandoned hosted page leaves the order payable again, and a retry pays it', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const first = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (first.__typename !== 'GatewaykitPaymentRedirect') throw new Error(first.__typename);
    const abandoned = await completeRedirect(first.url, 'abandon');
    expect(abandoned.storefrontLocation).toContain('payment=failed');
    const afterAbandon = await adminOrder(stack.admin, order.id);
    expect(afterAbandon.state).toBe('ArrangingPayment');
    expect(afterAbandon.payments.every((p) => p.state !== 'Settled')).toBe(true);

    const second = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (second.__typename !== 'GatewaykitPaymentRedirect') throw new Error(second.__typename);
    expect(second.orderNo).toBe(`${order.code}-2`);
    await completeRedirect(second.url, 'success');
    const paid = await eventually(
      () => adminOrder(stack.admin, order.id),
      (o) => o.state === 'PaymentSettled',
    );
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.filter((p) => p.state === 'Settled')).toHaveLength(1);
  });

  it('refunds stay Pending for manual settlement, with an order history note', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const started = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    await completeRedirect(started.url, 'success');
    const paid = await adminOrder(stack.admin, order.id);
    const payment = paid.payments[0];
    if (!payment) throw new Error('no payment');
    const { refundOrder } = await stack.admin.query<{ refundOrder: { __typename: string; state?: string } }>(
      `mutation ($input: RefundOrderInput!) { refundOrder(input: $input) { __typename ... on Refund { state } } }`,
      {
        input: {
          paymentId: payment.id,
          amount: 100,
          shipping: 0,
          adjustment: 0,
          lines: [],
          reason: 'customer request',
        },
      },
    );
    expect(refundOrder).toEqual({ __typename: 'Refund', state: 'Pending' });
    const noted = await eventually(
      () => adminOrder(stack.admin, order.id),
      (o) => JSON.stringify(o.history.items).includes('no refund API'),
    );
    expect(JSON.stringify(noted.history.items)).toContain(`Refund trade ${payment.transactionId}`);

    // The merchant refunds in the portal; the gateway's refund notice lands on the order as a note.
    const { activeChannel } = await stack.admin.query<{ activeChannel: { token: string } }>(
      `{ activeChannel { token } }`,
    );
    const portalNotice = (batchNo: string, amount: string) =>
      postSignedCallback({
        url: callbackUrl(stack.server.baseUrl, activeChannel.token, 'gatewaykit-hosted'),
        ...DEMO_MERCHANTS.main,
        type: 'refund.success',
        data: {
          orderNo: started.orderNo,
          tradeNo: payment.transactionId ?? '',
          batchNo,
          amount,
          currency: paid.currencyCode,
          orderAmount: (paid.totalWithTax / 100).toFixed(2),
          orderCurrency: paid.currencyCode,
          reason: 'customer request',
        },
      });
    expect(await portalNotice('PORTAL-HAND', '1.00')).toEqual({ status: 200, body: 'success' });
    const after = await adminOrder(stack.admin, order.id);
    expect(JSON.stringify(after.history.items)).toContain(
      `Gateway notice refund.success for trade ${payment.transactionId}`,
    );
    expect(after.payments.map((p) => p.state)).toEqual(['Settled']);
    // It is the refund recorded here by hand (the same amount): Vendure counts it, so it is not kept as
    // a refund Vendure does not count, which would refuse the payment's later gateway refunds.
    const portalRefunds = async () =>
      (await paymentsWithRefunds(stack.admin, order.id))[0]?.metadata.portalRefunds;
    expect(await portalRefunds()).toBeUndefined();
    expect(JSON.stringify((await adminOrder(stack.admin, order.id)).history.items)).toContain(
      'recorded here by hand',
    );
    // Its notice again: still that refund. Portal refunds Vendure has no refund for are kept, one of the
    // same amount too (the refund recorded by hand is bound to the first one).
    expect(await portalNotice('PORTAL-HAND', '1.00')).toEqual({ status: 200, body: 'success' });
    expect(await portalRefunds()).toBeUndefined();
    expect(await portalNotice('PORTAL-OTHER', '2.00')).toEqual({ status: 200, body: 'success' });
    expect(await portalNotice('PORTAL-SAME', '1.00')).toEqual({ status: 200, body: 'success' });
    expect(await portalRefunds()).toEqual(['PORTAL-OTHER', 'PORTAL-SAME']);
  });
});
