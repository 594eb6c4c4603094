import { describe, expect, it } from 'vitest';
import { adminOrder } from './support/admin';
import { complete, HOSTED, LOCAL, readyCart, startSession } from './support/checkout';
import { CARDS, finishHostedPage, followReturn } from './support/sandbox-pages';
import { api, expectOk } from './support/store-api';

describe('local payment (klarna)', () => {
  it('pays on the local method page and places the order', async () => {
    const { cartId, collectionId } = await readyCart();
    const session = await startSession(collectionId, LOCAL, { localMethod: 'klarna' });
    expect(session.status).toBe('requires_more');
    const storefront = await followReturn(await finishHostedPage(session.data.redirectUrl, 'success'));
    expect(storefront.searchParams.get('outcome')).toBe('succeeded');
    const done = await complete(cartId);
    expect(done.body.type).toBe('order');
    const order = await adminOrder(done.body.order.id);
    expect(order.payment_status).toBe('captured');
    expect(order.payment_collections[0].payments[0].provider_id).toBe(LOCAL);
  });

  it('abandoning places no order and the cart can be paid another way', async () => {
    const { cartId, collectionId } = await readyCart();
    const session = await startSession(collectionId, LOCAL, { localMethod: 'Klarna' });
    const storefront = await followReturn(await finishHostedPage(session.data.redirectUrl, 'abandon'));
    expect(storefront.searchParams.get('outcome')).toBe('failed');
    const { cart } = await expectOk(api('GET', `/store/carts/${cartId}?fields=completed_at`));
    expect(cart.completed_at).toBeFalsy();

    const hosted = await startSession(collectionId, HOSTED);
    await followReturn(await finishHostedPage(hosted.data.redirectUrl, 'success', CARDS.success));
    const done = await complete(cartId);
    expect(done.body.type).toBe('order');
  });

  it('rejects an unknown local method with a clear error', async () => {
    const { collectionId } = await readyCart();
    const response = await api('POST', `/store/payment-collections/${collectionId}/payment-sessions`, {
      body: { provider_id: LOCAL, data: { localMethod: 'no-such-method' } },
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain('data.localMethod');
  });
});
