import { describe, expect, it } from 'vitest';
import { adminOrder } from './support/admin';
import { CARD, complete, currentSession, readyCart, startSession } from './support/checkout';
import { registerCustomer, saveCard } from './support/customer';
import { CARDS, finishHostedPage, followReturn } from './support/sandbox-pages';
import { api, expectOk } from './support/store-api';

async function cartCompleted(cartId: string, token: string): Promise<boolean> {
  const { cart } = await expectOk(api('GET', `/store/carts/${cartId}?fields=completed_at`, { token }));
  return Boolean(cart.completed_at);
}

describe('card with 3-D Secure', () => {
  it('answers 400 with requires_more and the challenge URL, then places the order after the challenge', async () => {
    const { token, email } = await registerCustomer();
    const card = await saveCard(token, CARDS.challenge);
    const { cartId, collectionId } = await readyCart({ token, email });
    await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, token);

    const first = await complete(cartId, token);
    expect(first.status).toBe(400);
    expect(first.body.type).toBe('not_allowed');
    const session = await currentSession(cartId, token);
    expect(session.status).toBe('requires_more');
    expect(session.data.redirectUrl).toMatch(/^http/);

    const storefront = await followReturn(await finishHostedPage(session.data.redirectUrl, 'success'));
    expect(storefront.searchParams.get('outcome')).toBe('succeeded');
    const done = await complete(cartId, token);
    expect(done.status).toBe(200);
    expect(done.body.type).toBe('order');
    expect((await adminOrder(done.body.order.id)).payment_status).toBe('captured');
  });

  it('a failed challenge leaves the session in error and the cart open; another card then succeeds', async () => {
    const { token, email } = await registerCustomer();
    const challenge = await saveCard(token, CARDS.challenge);
    const { cartId, collectionId } = await readyCart({ token, email });
    await startSession(collectionId, CARD, { customerPaymentMethodId: challenge.id }, token);
    expect((await complete(cartId, token)).status).toBe(400);
    const pending = await currentSession(cartId, token);

    const storefront = await followReturn(await finishHostedPage(pending.data.redirectUrl, 'fail'));
    expect(storefront.searchParams.get('outcome')).toBe('failed');
    const failed = await currentSession(cartId, token);
    expect(failed.status).toBe('error');
    expect(failed.data.error).toBeTruthy();
    expect(await cartCompleted(cartId, token)).toBe(false);

    const good = await saveCard(token, CARDS.success);
    const retry = await startSession(collectionId, CARD, { customerPaymentMethodId: good.id }, token);
    expect(retry.id).not.toBe(failed.id);
    const done = await complete(cartId, token);
    expect(done.status).toBe(200);
    expect(done.body.type).toBe('order');
  });
});

describe('declined card', () => {
  it('reports the gateway reason, captures nothing, and a retry with another card works', async () => {
    const { token, email } = await registerCustomer();
    const declined = await saveCard(token, CARDS.decline);
    const { cartId, collectionId } = await readyCart({ token, email });
    await startSession(collectionId, CARD, { customerPaymentMethodId: declined.id }, token);
    const refused = await complete(cartId, token);
    expect(refused.status).toBe(400);
    const session = await currentSession(cartId, token);
    expect(session.status).toBe('error');
    expect(session.data.error).toMatch(/declin/i);
    expect(session.data.outcome.status).toBe('failed');
    expect(await cartCompleted(cartId, token)).toBe(false);

    const good = await saveCard(token, CARDS.success);
    await startSession(collectionId, CARD, { customerPaymentMethodId: good.id }, token);
    const done = await complete(cartId, token);
    expect(done.status).toBe(200);
    const order = await adminOrder(done.body.order.id);
    expect(order.payment_collections[0].payments).toHaveLength(1);
  });
});
