/**
 * A success that no Medusa payment took (PAID BUT NOT APPLIED: here the cart changed after its page was
 * opened), then given back at the gateway: refunded in the merchant portal, as the alert asks, or charged
 * back by the cardholder's bank. The notice is kept on the session, so the cart never becomes an order
 * for that money, whatever comes later (found by review: it was kept only on a Medusa payment).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { complete, HOSTED, readyCart, startSession } from './support/checkout';
import { sql } from './support/database';
import { uniqueEmail } from './support/email';
import { ordersOf } from './support/orders';
import { portalRefund } from './support/payments';
import { CARDS, finishWithoutReturn, sandboxControl } from './support/sandbox-pages';
import { serverLog } from './support/server-log';
import type { Json } from './support/store-api';
import { waitFor } from './support/wait';

afterEach(async () => {
  await sandboxControl('chaos', undefined, 'DELETE');
});

const logged = (text: string) => serverLog().includes(text);

/** A hosted payment whose success was reported PAID BUT NOT APPLIED: its cart costs more than was paid. */
async function paidNotApplied(prefix: string) {
  const email = uniqueEmail(prefix);
  const { cartId, collectionId } = await readyCart({ email });
  const session = await startSession(collectionId, HOSTED);
  await sql('update cart_line_item set quantity = quantity + 1 where cart_id = $1', [cartId]);
  await sandboxControl('chaos', { noReturn: 'always' });
  await finishWithoutReturn(session.data.redirectUrl, 'success', CARDS.success);
  await waitFor(
    async () => logged(`PAID BUT NOT APPLIED: Gateway payment orderNo ${session.id}`),
    'the paid-but-not-applied alert',
  );
  const [success] = (
    (await sandboxControl('callbacks')) as { id: string; orderNo: string; body: string }[]
  ).filter((delivery) => delivery.orderNo === session.id);
  const tradeNo = JSON.parse(success!.body).data.tradeNo as string;
  const [payments] = await sql<{ count: string }>(
    'select count(*) from payment where payment_session_id = $1',
    [session.id],
  );
  expect(payments?.count).toBe('0');
  return { email, cartId, session, tradeNo, successId: success!.id };
}

/** The cart costs what was paid again; neither the shopper nor the success delivered again makes an order. */
async function expectNeverAnOrder(paid: Awaited<ReturnType<typeof paidNotApplied>>, why: RegExp) {
  await sql('update cart_line_item set quantity = quantity - 1 where cart_id = $1', [paid.cartId]);
  const completed = await complete(paid.cartId);
  expect(completed.status).toBe(400);
  expect(completed.body.message).toMatch(why);
  await sandboxControl(`callbacks/${paid.successId}/redeliver`, {});
  await waitFor(async () => {
    const mine = ((await sandboxControl('callbacks')) as { orderNo: string; state: string }[]).filter(
      (delivery) => delivery.orderNo === paid.session.id,
    );
    return mine.every((delivery) => delivery.state === 'delivered');
  }, 'the redelivery to be acknowledged');
  expect(await ordersOf(paid.email)).toEqual([]);
}

async function sessionData(sessionId: string): Promise<Json> {
  const [row] = await sql<{ data: Json }>('select data from payment_session where id = $1', [sessionId]);
  return row!.data;
}

/**
 * No Medusa payment took the success: under the cart lock the provider's authorizePayment refuses the
 * money given back (it reads what the notice kept), so the session keeps its status, and with it its
 * place in the reconciliation (which asks the gateway about open sessions only).
 */
async function expectSessionStillAskedAbout(sessionId: string) {
  const [row] = await sql<{ status: string }>('select status from payment_session where id = $1', [
    sessionId,
  ]);
  expect(row?.status).not.toBe('canceled');
}

describe('a success never applied, then given back at the gateway', () => {
  it('attack: refunded in the merchant portal, it is kept on the session, and the cart never becomes an order for it', async () => {
    const paid = await paidNotApplied('unapplied-portal');
    await portalRefund(paid.tradeNo, String(paid.session.data.amount));
    await waitFor(
      async () => ((await sessionData(paid.session.id)).refundedAtGateway ?? []).length > 0,
      'the portal refund kept on the session',
    );
    expect((await sessionData(paid.session.id)).refundedAtGateway).toHaveLength(1);
    await expectNeverAnOrder(paid, /The payment for this cart was refunded at the gateway before an order/);
    await expectSessionStillAskedAbout(paid.session.id);
  });

  it("attack: charged back by the cardholder's bank, the cart never becomes an order for it", async () => {
    const paid = await paidNotApplied('unapplied-chargeback');
    const raised = (await sandboxControl('chargebacks', {
      tradeNo: paid.tradeNo,
      amount: String(paid.session.data.amount),
      reason: 'D4837-No Cardholder Authorization',
    })) as { batchNo: string };
    await waitFor(
      async () =>
        ((await sessionData(paid.session.id)).chargebacks ?? []).some(
          (chargeback: Json) => chargeback.batchNo === raised.batchNo,
        ),
      'the chargeback kept on the session',
    );
    await expectNeverAnOrder(
      paid,
      /The payment for this cart was charged back by the cardholder's bank before an order/,
    );
    await expectSessionStillAskedAbout(paid.session.id);
  });

  it('attack: refunded in the merchant portal before its success was recorded, the success later becomes no payment and no order', async () => {
    const email = uniqueEmail('returned-first');
    const { cartId, collectionId } = await readyCart({ email });
    const session = await startSession(collectionId, HOSTED);
    await sandboxControl('chaos', { drop: true, noReturn: 'always' });
    await finishWithoutReturn(session.data.redirectUrl, 'success', CARDS.success);
    const [success] = await waitFor(async () => {
      const kept = (
        (await sandboxControl('callbacks')) as { id: string; orderNo: string; body: string }[]
      ).filter((delivery) => delivery.orderNo === session.id);
      return kept.length > 0 && kept;
    }, 'the success callback, kept by the sandbox');
    await sandboxControl('chaos', undefined, 'DELETE');
    const tradeNo = JSON.parse(success!.body).data.tradeNo as string;
    await portalRefund(tradeNo, String(session.data.amount));

    await sandboxControl(`callbacks/${success!.id}/redeliver`, {});
    await waitFor(
      async () => logged(`PAYMENT RETURNED, NO ORDER: Gateway payment orderNo ${session.id}`),
      'the returned-before-order alert',
    );
    const [payments] = await sql<{ count: string }>(
      'select count(*) from payment where payment_session_id = $1',
      [session.id],
    );
    expect(payments?.count).toBe('0');
    const completed = await complete(cartId);
    expect(completed.status).toBe(400);
    expect(await ordersOf(email)).toEqual([]);
  });
});
