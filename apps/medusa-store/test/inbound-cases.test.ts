/**
 * One test per row of docs/inbound.md, through the real Medusa app over HTTP: what the gateway is
 * answered and what the merchant sees for every inbound case. The same rows run against Vendure in
 * apps/vendure-store/test/inbound-cases.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { signedReturnQuery } from '@gatewaykit/core/testing';
import { describe, expect, inject, it } from 'vitest';
import { adminTokenFor } from './support/admin';
import { complete, currentSession, HOSTED, readyCart, startSession } from './support/checkout';
import { uniqueEmail } from './support/email';
import { GATEWAY_NO, SIGN_KEY } from './support/global-setup';
import { ordersOf } from './support/orders';
import { serverLogSoFar } from './support/server-log';
import { signedHeaders } from './support/signed-callback';
import { api, type Json } from './support/store-api';
import { waitFor } from './support/wait';

interface Payment {
  orderNo: string;
  amount?: string;
  currency?: string;
  status?: 'success' | 'fail' | 'pending';
}

function eventOf(payment: Payment, type?: string): string {
  const status = payment.status ?? 'success';
  return JSON.stringify({
    type: type ?? `transaction.${status}`,
    data: {
      orderNo: payment.orderNo,
      tradeNo: `T-${payment.orderNo.slice(-8)}`,
      orderAmount: payment.amount ?? '60.00',
      orderCurrency: payment.currency ?? 'USD',
      orderStatus: status,
      orderInfo: status === 'success' ? 'Approved' : 'Declined',
    },
  });
}

function callback(body: string, options: Parameters<typeof signedHeaders>[1] = {}) {
  return api('POST', '/hooks/gatewaykit/callback', { rawBody: body, headers: signedHeaders(body, options) });
}

function returnOf(payment: Payment, edit?: (query: URLSearchParams) => void) {
  const query = signedReturnQuery(
    {
      code: '0000',
      gatewayNo: GATEWAY_NO,
      orderNo: payment.orderNo,
      tradeNo: `T-${payment.orderNo.slice(-8)}`,
      orderAmount: payment.amount ?? '60.00',
      orderCurrency: payment.currency ?? 'USD',
      orderStatus: payment.status ?? 'success',
      orderInfo: 'Approved',
    },
    SIGN_KEY,
  );
  edit?.(query);
  return fetch(`${inject('storeUrl')}/hooks/gatewaykit/return?${query}`, { redirect: 'manual' });
}

/** A cart on the hosted page: its session waits (`redirect`) for the gateway's result. */
async function waitingCart() {
  const email = uniqueEmail('inbound');
  const { cartId, collectionId } = await readyCart({ email });
  const session = await startSession(collectionId, HOSTED);
  expect(session.data.outcome.status).toBe('redirect');
  const payment = { orderNo: session.id, amount: String(session.data.amount), currency: 'USD' };
  return { email, cartId, collectionId, session, payment };
}

async function adminFeed(): Promise<string> {
  const feed = await api('GET', '/admin/notifications?limit=500', { token: await adminTokenFor() });
  return JSON.stringify(feed.body);
}

describe('inbound cases (docs/inbound.md) on Medusa', () => {
  it('bad signature, missing headers, body not JSON, other gateway number, edited return: 401, the session unchanged', async () => {
    const { cartId, payment } = await waitingCart();
    const body = eventOf(payment);
    expect((await callback(body, { signKey: 'not-the-merchant-key' })).status).toBe(401);
    const unsigned = await api('POST', '/hooks/gatewaykit/callback', { rawBody: body, headers: {} });
    expect(unsigned).toMatchObject({ status: 401, body: 'invalid signature' });
    expect((await callback(body, { gatewayNo: '99999999' })).status).toBe(401);
    const notJson = await callback('{"type":"transaction.success","data":');
    expect(notJson.status).toBe(401);
    const edited = await returnOf(payment, (query) => query.set('orderAmount', '0.01'));
    expect(edited.status).toBe(401);
    expect(await edited.text()).toBe('invalid signature');
    expect((await currentSession(cartId)).data.outcome.status).toBe('redirect');
  });

  it('request-time more than 10 minutes in the past or the future: 401, the session unchanged', async () => {
    const { cartId, email, payment } = await waitingCart();
    for (const shift of [-11, 11]) {
      const stale = await callback(eventOf(payment), { requestTime: Date.now() + shift * 60 * 1000 });
      expect(stale).toMatchObject({ status: 401, body: 'invalid signature' });
    }
    expect((await currentSession(cartId)).data.outcome.status).toBe('redirect');
    expect(await ordersOf(email)).toEqual([]);
  });

  it('orderNo of no session of this account: callback acknowledged, a success alerted; return 404', async () => {
    const orderNo = `payses_NOSUCH${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const answer = await callback(eventOf({ orderNo }));
    expect(answer).toMatchObject({ status: 200, body: 'success' });
    expect(await serverLogSoFar()).toContain(`PAID BUT NOT APPLIED: Gateway payment orderNo ${orderNo}`);
    expect(await adminFeed()).toContain(orderNo);
    const declined = `${orderNo}F`;
    expect(await callback(eventOf({ orderNo: declined, status: 'fail' }))).toMatchObject({ status: 200 });
    expect(await serverLogSoFar()).not.toContain(`orderNo ${declined}`);
    const returned = await returnOf({ orderNo });
    expect(returned.status).toBe(404);
    expect(await returned.text()).toBe('unknown order');
  });

  it('amount or currency differ from the session: acknowledged, nothing changes, the merchant alerted', async () => {
    const { cartId, email, payment } = await waitingCart();
    for (const wrong of [{ amount: '1.00' }, { currency: 'EUR' }]) {
      const answer = await callback(eventOf({ ...payment, ...wrong }));
      expect(answer).toMatchObject({ status: 200, body: 'success' });
    }
    expect(await serverLogSoFar()).toContain(
      `AMOUNT MISMATCH: Gateway succeeded for orderNo ${payment.orderNo}`,
    );
    expect(await adminFeed()).toContain(`orderNo ${payment.orderNo}`);
    const returned = await returnOf({ ...payment, amount: '1.00' });
    expect(returned.status).toBe(303);
    expect(new URL(returned.headers.get('location')!).searchParams.get('outcome')).toBe('redirect');
    expect((await currentSession(cartId)).data.outcome.status).toBe('redirect');
    expect((await complete(cartId)).body.type).not.toBe('order');
    expect(await ordersOf(email)).toEqual([]);
  });

  it('the same result again: acknowledged, one payment, one order', async () => {
    const { cartId, email, payment } = await waitingCart();
    for (let i = 0; i < 3; i++) expect(await callback(eventOf(payment))).toMatchObject({ status: 200 });
    const returned = await returnOf(payment);
    expect(new URL(returned.headers.get('location')!).searchParams.get('outcome')).toBe('succeeded');
    const orders = await waitFor(async () => {
      const found = await ordersOf(email);
      return found.length > 0 && found;
    }, 'the order');
    expect(orders).toHaveLength(1);
    expect(orders[0]!.payment_collections[0].payments).toHaveLength(1);
    expect((await complete(cartId)).body.order.id).toBe(orders[0]!.id);
  });

  it('a fail after the success: acknowledged, the success stays (also on the return page)', async () => {
    const { cartId, email, payment } = await waitingCart();
    await callback(eventOf(payment));
    const late = await callback(eventOf({ ...payment, status: 'fail' }));
    expect(late).toMatchObject({ status: 200, body: 'success' });
    const returned = await returnOf({ ...payment, status: 'fail' });
    expect(new URL(returned.headers.get('location')!).searchParams.get('outcome')).toBe('succeeded');
    expect((await currentSession(cartId)).data.outcome.status).toBe('succeeded');
    expect(await ordersOf(email)).toHaveLength(1);
  });

  it('a success for a session the cart no longer has: acknowledged and alerted, never applied', async () => {
    const { collectionId, email, payment } = await waitingCart();
    // The shopper's page failed; a new session replaces it (Medusa deletes the old one).
    expect(await callback(eventOf({ ...payment, status: 'fail' }))).toMatchObject({ status: 200 });
    await startSession(collectionId, HOSTED);
    const late = await callback(eventOf(payment));
    expect(late).toMatchObject({ status: 200, body: 'success' });
    expect(await serverLogSoFar()).toContain(
      `PAID BUT NOT APPLIED: Gateway payment orderNo ${payment.orderNo}`,
    );
    expect(await adminFeed()).toContain(payment.orderNo);
    expect(await ordersOf(email)).toEqual([]);
  });

  it('a refund notice: acknowledged, the payment unchanged', async () => {
    const { cartId, email, payment } = await waitingCart();
    await callback(eventOf(payment));
    await waitFor(async () => (await ordersOf(email)).length === 1, 'the paid order');
    const refund = JSON.stringify({
      type: 'refund.success',
      data: { orderNo: payment.orderNo, tradeNo: 'T1', refundAmount: '1.00', currency: 'USD' },
    });
    expect(await callback(refund)).toMatchObject({ status: 200, body: 'success' });
    expect((await currentSession(cartId)).data.outcome.status).toBe('succeeded');
    const orders: Json[] = await ordersOf(email);
    expect(orders[0].payment_status).toBe('captured');
  });
});
