import { describe, expect, it } from 'vitest';
import { adminOrder } from './support/admin';
import { complete, currentSession, HOSTED, readyCart, startSession } from './support/checkout';
import { CARDS, finishHostedPage, followReturn } from './support/sandbox-pages';

describe('guest, hosted checkout', () => {
  it('pays on the gateway page, returns signed, and places the order with the payment captured', async () => {
    const { cartId, collectionId, total } = await readyCart();
    const session = await startSession(collectionId, HOSTED);
    expect(session.status).toBe('requires_more');
    expect(session.data.redirectUrl).toMatch(/^http/);
    expect(JSON.stringify(session.data)).not.toContain('sign');

    const returnLocation = await finishHostedPage(session.data.redirectUrl, 'success', CARDS.success);
    // An edited return (here: the status) fails the signature and changes nothing.
    const tampered = new URL(returnLocation);
    tampered.searchParams.set(
      'orderStatus',
      tampered.searchParams.get('orderStatus') === 'success' ? 'fail' : 'success',
    );
    expect((await fetch(tampered, { redirect: 'manual' })).status).toBe(401);
    expect((await currentSession(cartId)).status).toBe('requires_more');

    const storefront = await followReturn(returnLocation);
    expect(storefront.origin + storefront.pathname).toBe('http://storefront.test/checkout/return');
    expect(storefront.searchParams.get('cart_id')).toBe(cartId);
    expect(storefront.searchParams.get('outcome')).toBe('succeeded');

    const completed = await complete(cartId);
    expect(completed.status).toBe(200);
    expect(completed.body.type).toBe('order');
    const order = await adminOrder(completed.body.order.id);
    expect(order.payment_status).toBe('captured');
    const payment = order.payment_collections[0].payments[0];
    expect(payment.provider_id).toBe(HOSTED);
    expect(Number(payment.amount)).toBe(total);
    expect(payment.captured_at ?? payment.captures?.length).toBeTruthy();
    expect(payment.data.outcome.status).toBe('succeeded');
    expect(payment.data.outcome.maskCardNo).not.toContain(CARDS.success);
    expect(JSON.stringify(payment.data)).not.toContain(CARDS.success);
  });
});
