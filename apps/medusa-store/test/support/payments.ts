import { portalRefund as gatewayPortalRefund } from '@gatewaykit/core/testing';
import { expect, inject } from 'vitest';
import { adminOrder, adminTokenFor } from './admin';
import { complete, HOSTED, readyCart, startSession } from './checkout';
import { sql } from './database';
import { uniqueEmail } from './email';
import { GATEWAY_NO, SIGN_KEY } from './global-setup';
import { CARDS, finishHostedPage, followReturn, sandboxControl } from './sandbox-pages';
import { serverLog } from './server-log';
import { type ApiResponse, api, expectOk, type Json } from './store-api';
import { waitFor } from './wait';

/** A guest order paid on the hosted page: its Medusa payment and gateway trade. */
export async function paidOrder(): Promise<{
  email: string;
  orderId: string;
  paymentId: string;
  orderNo: string;
  tradeNo: string;
  total: number;
}> {
  const email = uniqueEmail('paid');
  const { cartId, collectionId, total } = await readyCart({ email });
  const session = await startSession(collectionId, HOSTED);
  await followReturn(await finishHostedPage(session.data.redirectUrl, 'success', CARDS.success));
  const { body } = await complete(cartId);
  expect(body.type).toBe('order');
  const order = await adminOrder(body.order.id);
  const payment = order.payment_collections[0].payments[0];
  expect(payment.data.outcome.status).toBe('succeeded');
  return {
    email,
    orderId: order.id,
    paymentId: payment.id,
    orderNo: session.id,
    tradeNo: payment.data.outcome.tradeNo,
    total,
  };
}

/** `POST /admin/payments/:id/refund` as the seeded admin; `refundId`: the refund it added, if any. */
export async function adminRefund(
  paymentId: string,
  amount: number,
): Promise<ApiResponse & { refundId?: string }> {
  const before = new Set(((await adminPayment(paymentId)).refunds ?? []).map((refund: Json) => refund.id));
  const response = await api('POST', `/admin/payments/${paymentId}/refund`, {
    token: await adminTokenFor(),
    body: { amount },
  });
  const added = ((await adminPayment(paymentId)).refunds ?? []).find(
    (refund: Json) => !before.has(refund.id),
  );
  return { ...response, ...(added ? { refundId: added.id as string } : {}) };
}

/** The payment as the admin API shows it: data (what the order widget reads) and Medusa's refunds. */
export async function adminPayment(paymentId: string): Promise<Record<string, Json>> {
  const { payment } = await expectOk(
    api('GET', `/admin/payments/${paymentId}?fields=+data,+provider_id,*refunds`, {
      token: await adminTokenFor(),
    }),
  );
  return payment;
}

export interface GatewayRefundRow {
  batchNo: string;
  merTrackNo: string;
  tradeNo: string;
  refundAmount: string;
  refundType: string;
  refundStatus: string;
}

export async function sandboxRefunds(tradeNo: string): Promise<GatewayRefundRow[]> {
  return (await sandboxControl(`refunds?tradeNo=${encodeURIComponent(tradeNo)}`)) as GatewayRefundRow[];
}

export interface Delivery {
  id: string;
  orderNo: string;
  batchNo?: string;
  type: string;
  body: string;
  state: string;
  attempts: { response?: string; httpStatus?: number }[];
}

export async function deliveriesOfBatch(batchNo: string): Promise<Delivery[]> {
  const all = (await sandboxControl('callbacks')) as Delivery[];
  return all.filter((delivery) => delivery.batchNo === batchNo);
}

/**
 * Lifts the sandbox's chaos and delivers the kept notice `deliveryId` of batch `batchNo` again; waits
 * until it is acknowledged and returns the delivery.
 */
export async function redeliverLate(deliveryId: string, batchNo: string): Promise<Delivery> {
  await sandboxControl('chaos', undefined, 'DELETE');
  await sandboxControl(`callbacks/${deliveryId}/redeliver`, {});
  return waitFor(async () => {
    const [again] = await deliveriesOfBatch(batchNo);
    return again?.state === 'delivered' && again;
  }, 'the late notice to be acknowledged');
}

/** Delivers the notice `deliveryId` of batch `batchNo` once more; waits until that attempt is answered. */
export async function redeliverAgain(deliveryId: string, batchNo: string): Promise<Delivery> {
  await sandboxControl(`callbacks/${deliveryId}/redeliver`, {});
  return waitFor(async () => {
    const [again] = await deliveriesOfBatch(batchNo);
    return (again?.attempts.length ?? 0) >= 2 && again;
  }, 'the repeated notice');
}

/** Waits until the payment data shows the refund `merTrackNo` with `status`; returns the entry. */
export async function refundEntryWhen(
  paymentId: string,
  merTrackNo: string,
  status: string,
): Promise<Record<string, Json>> {
  return waitFor(async () => {
    const payment = await adminPayment(paymentId);
    const entry = (payment.data.refunds ?? []).find((refund: Json) => refund.merTrackNo === merTrackNo);
    return entry?.status === status && entry;
  }, `refund ${merTrackNo} to be ${status} in the payment data`);
}

/** The admin's notification feed, as text. */
export async function adminFeed(): Promise<string> {
  const feed = await api('GET', '/admin/notifications?limit=500', { token: await adminTokenFor() });
  return JSON.stringify(feed.body);
}

/** `POST /admin/gatewaykit/reconcile` as the seeded admin. */
export async function reconcileNow(
  body: Record<string, unknown> = {},
): Promise<ApiResponse<Record<string, Json>>> {
  return api('POST', '/admin/gatewaykit/reconcile', { token: await adminTokenFor(), body });
}

/**
 * A full refund of trade `tradeNo` made in the gateway's merchant portal (the gateway's own refund call,
 * under a merTrackNo Medusa never made); waits until the store reports it (REFUND NOT IN MEDUSA).
 */
export async function portalRefund(tradeNo: string, amount: string): Promise<string> {
  const merTrackNo = await gatewayPortalRefund(
    { gatewayNo: GATEWAY_NO, signKey: SIGN_KEY, baseUrl: inject('sandboxUrl') },
    tradeNo,
    amount,
  );
  await waitFor(
    async () => new RegExp(`REFUND NOT IN MEDUSA: .*${merTrackNo}`).test(serverLog()),
    'the portal refund to be reported',
  );
  return merTrackNo;
}

/** A chargeback of `amount` raised at the gateway on a paid order; waits until its payment records it. */
export async function raiseChargeback(
  paid: { orderId: string; tradeNo: string },
  amount: string,
): Promise<{ batchNo: string }> {
  const raised = (await sandboxControl('chargebacks', {
    tradeNo: paid.tradeNo,
    amount,
    reason: 'D4837-No Cardholder Authorization',
  })) as { batchNo: string };
  await waitFor(async () => {
    const order = await adminOrder(paid.orderId);
    return (order.payment_collections[0].payments[0].data.chargebacks ?? []).length > 0;
  }, 'the chargeback to be recorded');
  return raised;
}

/** The table holding a kept notice: the session's data (no Medusa payment took it) or its payment's. */
type KeptOn = 'payment_session' | 'payment';

/**
 * The completion guard judges before Medusa's cart lock; a completion that passed it just before money
 * went back at the gateway is judged under the lock by the session's status alone. Shown by blinding the
 * guard: `key` (what the notice kept) taken off the session's and its payment's data, then completing:
 * the session is retired (`canceled`) and Medusa refuses. The data is put back.
 */
export async function expectRefusedUnderCartLock(cartId: string, sessionId: string, key: string) {
  const [session] = await sql<{ status: string }>('select status from payment_session where id = $1', [
    sessionId,
  ]);
  expect(session?.status).toBe('canceled');
  const kept = await sql<{ id: string; data: Json; kept_on: KeptOn }>(
    `select id, data, 'payment_session' as kept_on from payment_session where id = $1 and data ? $2
     union all select id, data, 'payment' from payment where payment_session_id = $1 and data ? $2`,
    [sessionId, key],
  );
  expect(kept.length).toBeGreaterThan(0);
  const write = (row: { id: string; kept_on: KeptOn }, data: string, values: unknown[]) =>
    sql(`update ${row.kept_on} set data = ${data} where id = $1`, [row.id, ...values]);
  for (const row of kept) await write(row, 'data - $2', [key]);
  try {
    const queued = await complete(cartId);
    expect(queued.status).toBe(400);
    expect(queued.body.message).toMatch(/Payment sessions are required to complete cart/);
  } finally {
    for (const row of kept) await write(row, '$2', [row.data]);
  }
}
