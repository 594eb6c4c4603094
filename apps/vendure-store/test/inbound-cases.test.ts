/**
 * One test per row of docs/inbound.md, through the real Vendure server over HTTP: what the gateway is
 * answered and what the merchant sees for every inbound case. The same rows run against Medusa in
 * apps/medusa-store/test/inbound-cases.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { signedCallback, signedReturnQuery } from '@gatewaykit/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANTS } from '../src/gateways';
import { callbackUrl, postSignedCallback } from './support/callbacks';
import { adminOrder, completeRedirect, eventually, prepareOrder, startPayment } from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';

const METHOD = 'gatewaykit-hosted';
const MERCHANT = DEMO_MERCHANTS.main;

interface Payment {
  orderNo: string;
  amount: string;
  currency: string;
  status?: 'success' | 'fail' | 'pending';
}

function dataOf(payment: Payment): Record<string, string> {
  const status = payment.status ?? 'success';
  return {
    orderNo: payment.orderNo,
    tradeNo: `T-${payment.orderNo}`,
    orderAmount: payment.amount,
    orderCurrency: payment.currency,
    orderStatus: status,
    orderInfo: status === 'success' ? 'Transaction Approved' : 'Declined',
  };
}

describe('inbound cases (docs/inbound.md) on Vendure', () => {
  let stack: Stack;
  let token: string;
  beforeAll(async () => {
    stack = await startStack();
    const { activeChannel } = await stack.admin.query<{ activeChannel: { token: string } }>(
      `{ activeChannel { token } }`,
    );
    token = activeChannel.token;
  });
  afterAll(async () => {
    await stack?.close();
  });

  const url = () => callbackUrl(stack.server.baseUrl, token, METHOD);

  function callback(
    payment: Payment,
    options: { signKey?: string; requestTime?: number; type?: string } = {},
  ) {
    return postSignedCallback({
      url: url(),
      gatewayNo: MERCHANT.gatewayNo,
      signKey: options.signKey ?? MERCHANT.signKey,
      type: options.type ?? `transaction.${payment.status ?? 'success'}`,
      data: dataOf(payment),
      ...(options.requestTime === undefined ? {} : { requestTime: options.requestTime }),
    });
  }

  async function returnOf(payment: Payment, edit?: (query: URLSearchParams) => void) {
    const query = signedReturnQuery(
      { code: '0000', gatewayNo: MERCHANT.gatewayNo, message: 'Success', ...dataOf(payment) },
      MERCHANT.signKey,
    );
    edit?.(query);
    const res = await fetch(
      `${stack.server.baseUrl}/payments/gatewaykit/return/${token}/${METHOD}?${query}`,
      {
        redirect: 'manual',
      },
    );
    return { status: res.status, body: await res.text(), location: res.headers.get('location') };
  }

  /** An order on the hosted page: its attempt waits (`redirect`) for the gateway's result. */
  async function waitingOrder() {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const started = await startPayment(shop, { paymentMethodCode: METHOD });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    const gatewayOrder = stack.sandbox.order(started.orderNo);
    const payment: Payment = {
      orderNo: started.orderNo,
      amount: gatewayOrder?.orderAmount ?? '?',
      currency: gatewayOrder?.orderCurrency ?? '?',
    };
    return { shop, order, started, payment };
  }

  const statusOf = (location: string | null) => new URL(location ?? 'http://x').searchParams.get('payment');
  const notesOf = async (orderId: string) =>
    JSON.stringify((await adminOrder(stack.admin, orderId)).history.items);

  it('bad signature, missing headers, body not JSON, other gateway number, edited return: 401, the session unchanged', async () => {
    const { order, payment } = await waitingOrder();
    expect(await callback(payment, { signKey: 'not-the-merchant-key' })).toEqual({
      status: 401,
      body: 'invalid signature',
    });
    const body = JSON.stringify({ type: 'transaction.success', data: dataOf(payment) });
    const unsigned = await fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(unsigned.status).toBe(401);
    const notJson = signedCallback({ ...MERCHANT, body: '{"type":"transaction.success","data":' });
    expect(
      (await fetch(url(), { method: 'POST', headers: notJson.headers, body: notJson.body })).status,
    ).toBe(401);
    const otherGateway = signedCallback({ gatewayNo: '99999999', signKey: MERCHANT.signKey, body });
    expect((await fetch(url(), { method: 'POST', ...otherGateway })).status).toBe(401);
    const edited = await returnOf(payment, (query) => query.set('orderAmount', '0.01'));
    expect(edited).toMatchObject({ status: 401, body: 'invalid signature' });
    const after = await adminOrder(stack.admin, order.id);
    expect(after.state).toBe('ArrangingPayment');
    expect(after.payments).toHaveLength(0);
  });

  it('request-time more than 10 minutes in the past or the future: 401, the session unchanged', async () => {
    const { order, payment } = await waitingOrder();
    for (const shift of [-11, 11]) {
      const stale = await callback(payment, { requestTime: Date.now() + shift * 60 * 1000 });
      expect(stale).toEqual({ status: 401, body: 'invalid signature' });
    }
    expect((await adminOrder(stack.admin, order.id)).payments).toHaveLength(0);
  });

  it('orderNo of no session of this account: callback acknowledged, a success alerted; return 404', async () => {
    const orderNo = `NOSUCH${randomUUID().slice(0, 8)}-1`;
    const payment = { orderNo, amount: '10.00', currency: 'USD' };
    expect(await callback(payment)).toEqual({ status: 200, body: 'success' });
    expect(stack.server.output()).toContain(`PAID BUT NOT APPLIED: gateway payment orderNo ${orderNo}`);
    const declined = { ...payment, orderNo: `${orderNo}F`, status: 'fail' as const };
    expect(await callback(declined)).toEqual({ status: 200, body: 'success' });
    expect(stack.server.output()).not.toContain(`orderNo ${declined.orderNo}`);
    expect(await returnOf(payment)).toMatchObject({ status: 404, body: 'unknown order' });
  });

  it('amount or currency differ from the session: acknowledged, nothing changes, the merchant alerted', async () => {
    const { order, payment } = await waitingOrder();
    // Each twice: the gateway repeats a callback it thinks was not received.
    for (const wrong of [{ amount: '0.01' }, { amount: '0.01' }, { currency: 'EUR' }]) {
      expect(await callback({ ...payment, ...wrong })).toEqual({ status: 200, body: 'success' });
    }
    const returned = await returnOf({ ...payment, amount: '0.01' });
    expect(returned.status).toBe(303);
    expect(statusOf(returned.location)).toBe('redirect');
    const after = await adminOrder(stack.admin, order.id);
    expect(after.state).toBe('ArrangingPayment');
    expect(after.payments).toHaveLength(0);
    const notes = after.history.items.filter((entry) => entry.type === 'ORDER_NOTE');
    const said = notes.filter((entry) =>
      String(entry.data.note).startsWith(
        `Gateway result for ${payment.orderNo} ignored: Amount mismatch: the gateway reported 0.01 USD`,
      ),
    );
    // Once on the order, however often it is repeated (found by review: every run added it again).
    expect(said).toHaveLength(1);
    expect(await notesOf(order.id)).toContain(`reported ${payment.amount} EUR`);
  });

  it('the same result again: acknowledged, one payment, one order', async () => {
    const { order, payment } = await waitingOrder();
    for (let i = 0; i < 3; i++) expect(await callback(payment)).toEqual({ status: 200, body: 'success' });
    const returned = await returnOf(payment);
    expect(statusOf(returned.location)).toBe('succeeded');
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.map((p) => p.state)).toEqual(['Settled']);
  });

  it('a fail after the success: acknowledged, the success stays (also on the return page)', async () => {
    const { order, payment } = await waitingOrder();
    await callback(payment);
    const late = await callback({ ...payment, status: 'fail' });
    expect(late).toEqual({ status: 200, body: 'success' });
    const returned = await returnOf({ ...payment, status: 'fail' });
    expect(statusOf(returned.location)).toBe('succeeded');
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.map((p) => p.state)).toEqual(['Settled']);
  });

  it('a success for a session the cart no longer has: acknowledged and alerted, never applied', async () => {
    const { shop, order, payment } = await waitingOrder();
    // The first page failed; a second attempt pays the order.
    expect(await callback({ ...payment, status: 'fail' })).toEqual({ status: 200, body: 'success' });
    const second = await startPayment(shop, { paymentMethodCode: METHOD });
    if (second.__typename !== 'GatewaykitPaymentRedirect') throw new Error(second.__typename);
    await completeRedirect(second.url, 'success');
    const paid = await eventually(
      () => adminOrder(stack.admin, order.id),
      (o) => o.state === 'PaymentSettled',
    );
    expect(paid.state).toBe('PaymentSettled');
    // The gateway later reports money taken on the first, abandoned attempt.
    expect(await callback(payment)).toEqual({ status: 200, body: 'success' });
    const after = await adminOrder(stack.admin, order.id);
    expect(after.payments.filter((p) => p.state === 'Settled')).toHaveLength(1);
    expect(JSON.stringify(after.history.items)).toContain(
      `orderNo ${payment.orderNo}, ${payment.amount} ${payment.currency}) was charged but could not be added`,
    );
  });

  it('a refund notice: acknowledged, the payment unchanged', async () => {
    const { order, payment } = await waitingOrder();
    await callback(payment);
    const refund = await callback(payment, { type: 'refund.success' });
    expect(refund).toEqual({ status: 200, body: 'success' });
    const after = await adminOrder(stack.admin, order.id);
    expect(after.payments.map((p) => p.state)).toEqual(['Settled']);
    expect(JSON.stringify(after.history.items)).toContain('Gateway notice refund.success');
  });
});
