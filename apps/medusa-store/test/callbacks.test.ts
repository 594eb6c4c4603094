import { afterEach, describe, expect, it } from 'vitest';
import { complete, currentSession, HOSTED, readyCart, startSession } from './support/checkout';
import { uniqueEmail } from './support/email';
import { ordersOf } from './support/orders';
import {
  CARDS,
  finishHostedPage,
  finishWithoutReturn,
  followReturn,
  sandboxControl,
} from './support/sandbox-pages';
import { signedHeaders } from './support/signed-callback';
import { api } from './support/store-api';
import { waitFor } from './support/wait';

interface Delivery {
  orderNo: string;
  type: string;
  body: string;
  state: string;
}

async function deliveriesOf(orderNo: string): Promise<Delivery[]> {
  const all = (await sandboxControl('callbacks')) as Delivery[];
  return all.filter((delivery) => delivery.orderNo === orderNo);
}

async function hostedSession(email: string) {
  const { cartId, collectionId } = await readyCart({ email });
  const session = await startSession(collectionId, HOSTED);
  return { cartId, session };
}

afterEach(async () => {
  await sandboxControl('chaos', undefined, 'DELETE');
});

describe('gateway callbacks', () => {
  it('20 concurrent duplicate callbacks make one payment and one order', async () => {
    await sandboxControl('chaos', { copies: 20, noReturn: 'always' });
    const email = uniqueEmail('dup');
    const { cartId, session } = await hostedSession(email);
    await finishWithoutReturn(session.data.redirectUrl, 'success', CARDS.success);
    const deliveries = await waitFor(async () => {
      const list = await deliveriesOf(session.id);
      return list.length === 20 && list.every((d) => d.state === 'delivered') && list;
    }, 'all 20 callbacks to be acknowledged');
    expect(deliveries).toHaveLength(20);
    const orders = await ordersOf(email);
    expect(orders).toHaveLength(1);
    expect(orders[0]!.payment_status).toBe('captured');
    expect(orders[0]!.payment_collections[0].payments).toHaveLength(1);
    const again = await complete(cartId);
    expect(again.body.order.id).toBe(orders[0]!.id);
  });

  it('ignores a stale fail callback after the success', async () => {
    await sandboxControl('chaos', { outOfOrder: true, noReturn: 'always' });
    const email = uniqueEmail('stale');
    const { cartId, session } = await hostedSession(email);
    await finishWithoutReturn(session.data.redirectUrl, 'success', CARDS.success);
    await waitFor(async () => {
      const list = await deliveriesOf(session.id);
      return list.some((d) => d.type === 'transaction.fail') && list.every((d) => d.state === 'delivered');
    }, 'the success and the stale fail callbacks');
    const stored = await currentSession(cartId);
    expect(stored.data.outcome.status).toBe('succeeded');
    const orders = await ordersOf(email);
    expect(orders).toHaveLength(1);
    expect(orders[0]!.payment_status).toBe('captured');
  });

  it('rejects a bad signature and a callback older than 10 minutes without changing anything', async () => {
    await sandboxControl('chaos', { drop: true, noReturn: 'always' });
    const email = uniqueEmail('forged');
    const { cartId, session } = await hostedSession(email);
    await finishWithoutReturn(session.data.redirectUrl, 'success', CARDS.success);
    const [delivery] = await waitFor(async () => {
      const list = await deliveriesOf(session.id);
      return list.length > 0 && list;
    }, 'the recorded (dropped) callback');
    const send = async (options: { signKey?: string; requestTime?: number }) => {
      return api('POST', '/hooks/gatewaykit/callback', {
        rawBody: delivery!.body,
        headers: signedHeaders(delivery!.body, options),
      });
    };
    const forged = await send({ signKey: 'not-the-merchant-key' });
    expect(forged.status).toBe(401);
    const stale = await send({ requestTime: Date.now() - 11 * 60 * 1000 });
    expect(stale.status).toBe(401);
    const unchanged = await currentSession(cartId);
    expect(unchanged.status).toBe('requires_more');
    expect(unchanged.data.outcome.status).toBe('redirect');
    expect(await ordersOf(email)).toHaveLength(0);

    // Correctly signed but about another amount: acknowledged (retrying cannot change the amount),
    // nothing stored, the merchant alerted (docs/inbound.md).
    const event = JSON.parse(delivery!.body) as { type: string; data: Record<string, string> };
    const otherAmount = JSON.stringify({ ...event, data: { ...event.data, orderAmount: '1.00' } });
    const mismatch = await api('POST', '/hooks/gatewaykit/callback', {
      rawBody: otherAmount,
      headers: signedHeaders(otherAmount),
    });
    expect(mismatch).toMatchObject({ status: 200, body: 'success' });
    expect((await currentSession(cartId)).data.outcome.status).toBe('redirect');

    // The same body, correctly signed and fresh, is accepted and completes the order.
    const genuine = await send({});
    expect(genuine.status).toBe(200);
    expect(genuine.body).toBe('success');
    expect(await ordersOf(email)).toHaveLength(1);
  });

  for (const timing of ['before-return', 'after-return'] as const) {
    it(`callback sent ${timing.replace('-return', '')} the browser return: exactly one order`, async () => {
      await sandboxControl('chaos', { timing });
      const email = uniqueEmail(timing);
      const { cartId, session } = await hostedSession(email);
      const storefront = await followReturn(
        await finishHostedPage(session.data.redirectUrl, 'success', CARDS.success),
      );
      expect(storefront.searchParams.get('outcome')).toBe('succeeded');
      await waitFor(async () => {
        const list = await deliveriesOf(session.id);
        return list.length > 0 && list.every((d) => d.state === 'delivered');
      }, 'the callback to be acknowledged');
      const done = await complete(cartId);
      expect(done.body.type).toBe('order');
      const orders = await ordersOf(email);
      expect(orders).toHaveLength(1);
      expect(orders[0]!.payment_collections[0].payments).toHaveLength(1);
    });
  }
});
