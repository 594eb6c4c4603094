import { afterEach, describe, expect, it } from 'vitest';
import { adminOrder, adminTokenFor } from './support/admin';
import { CARD, complete, currentSession, readyCart, startSession } from './support/checkout';
import { registerCustomer, saveCard } from './support/customer';
import { sql } from './support/database';
import { ordersOf } from './support/orders';
import { CARDS, sandboxControl } from './support/sandbox-pages';
import { serverLog } from './support/server-log';
import { postTransactionCallback } from './support/signed-callback';
import { api, expectOk } from './support/store-api';
import { waitFor } from './support/wait';

afterEach(async () => {
  await sandboxControl('chaos', undefined, 'DELETE');
});

describe('pending card (no redirect)', () => {
  /** A registered shopper's cart completed with a saved card the gateway answers pending: the order is placed unpaid. */
  async function pendingCardOrder() {
    const { token, email } = await registerCustomer();
    const card = await saveCard(token, CARDS.pendingThenSuccess);
    const { cartId, collectionId } = await readyCart({ token, email });
    await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, token);
    const completed = await complete(cartId, token);
    return { token, email, cartId, completed };
  }

  it('places the order at once; the callback that settles the pending charge captures its payment', async () => {
    const { email, completed } = await pendingCardOrder();
    // pending_authorization: the order is placed at once, without a payment yet.
    expect(completed.status).toBe(200);
    expect(completed.body.type).toBe('order');
    const order = completed.body.order;

    const settled = await waitFor(async () => {
      const [found] = await ordersOf(email);
      return found?.payment_status === 'captured' && found;
    }, 'the callback to capture the deferred payment');
    expect(settled.id).toBe(order.id);
    expect(await ordersOf(email)).toHaveLength(1);
    const payments = settled.payment_collections[0].payments;
    expect(payments).toHaveLength(1);
    expect(payments[0].data.outcome.status).toBe('succeeded');
  });

  it('a pending payment that then fails leaves the order unpaid, and the merchant is told (log and admin feed)', async () => {
    // The gateway's own later success must not arrive: the failure is the result here.
    await sandboxControl('chaos', { drop: true });
    const { token, email, cartId, completed } = await pendingCardOrder();
    expect(completed.body.type).toBe('order');
    const session = await currentSession(cartId, token);
    expect(session.data.outcome.status).toBe('pending');

    const answer = await postTransactionCallback(session, {
      status: 'fail',
      tradeNo: session.data.outcome.tradeNo,
      orderInfo: 'Insufficient funds',
    });
    expect(answer).toMatchObject({ status: 200, body: 'success' });

    const alert = `ORDER NOT PAID: Gateway payment orderNo ${session.id}`;
    await waitFor(async () => serverLog().includes(alert), 'the unpaid-order alert');
    const feed = await api('GET', '/admin/notifications?limit=500', { token: await adminTokenFor() });
    expect(JSON.stringify(feed.body)).toContain(session.id);
    const [order] = await ordersOf(email);
    expect(order?.payment_status).not.toBe('captured');
  });

  it('attack: a success arriving after the merchant canceled the unpaid order is not captured into it; the merchant is told to refund it', async () => {
    // Only the signed success sent below reaches the store.
    await sandboxControl('chaos', { drop: true });
    const { token, cartId, completed } = await pendingCardOrder();
    expect(completed.body.type).toBe('order');
    const orderId = completed.body.order.id;
    const session = await currentSession(cartId, token);
    expect(session.data.outcome.status).toBe('pending');

    const admin = await adminTokenFor();
    await expectOk(api('POST', `/admin/orders/${orderId}/cancel`, { token: admin }));

    const answer = await postTransactionCallback(session, {
      status: 'success',
      tradeNo: session.data.outcome.tradeNo,
      orderInfo: 'Approved',
    });
    expect(answer).toMatchObject({ status: 200, body: 'success' });

    const alert = `PAID BUT NOT APPLIED: Gateway payment orderNo ${session.id}`;
    await waitFor(async () => serverLog().includes(alert), 'the paid-but-not-applied alert');
    const order = await adminOrder(orderId);
    expect(order.status).toBe('canceled');
    expect(order.payment_collections[0].payments ?? []).toEqual([]);
    const [row] = await sql<{ authorized_at: Date | null }>(
      'select authorized_at from payment_session where id = $1',
      [session.id],
    );
    expect(row?.authorized_at).toBeNull();
  });
});
