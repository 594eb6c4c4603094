import { afterEach, describe, expect, it } from 'vitest';
import { CARD, complete, currentSession, readyCart, startSession } from './support/checkout';
import { registerCustomer, saveCard } from './support/customer';
import { ordersOf } from './support/orders';
import { CARDS, sandboxControl } from './support/sandbox-pages';
import { waitFor } from './support/wait';

afterEach(async () => {
  await sandboxControl('faults', undefined, 'DELETE');
});

describe('unknown outcome', () => {
  it('a charge whose answer is lost is not sent again; the callback completes the order', async () => {
    const { token, email } = await registerCustomer();
    const card = await saveCard(token, CARDS.success);
    const { cartId, collectionId } = await readyCart({ token, email });
    const session = await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, token);
    await sandboxControl('faults', { route: 'confirmCharge', kind: 'commit-then-drop' });

    const first = await complete(cartId, token);
    // Either the callback already settled it (order), or the session waits for it (400, never error).
    expect([200, 400]).toContain(first.status);
    if (first.status === 400) {
      expect(['pending', 'captured', 'authorized']).toContain((await currentSession(cartId, token)).status);
    }
    const order = await waitFor(async () => {
      const response = await complete(cartId, token);
      return response.status === 200 && response.body.type === 'order' && response.body.order;
    }, 'the order to be placed by the callback');
    const orders = await ordersOf(email);
    expect(orders.map((o) => o.id)).toEqual([order.id]);
    expect(orders[0]!.payment_status).toBe('captured');

    const requests = (await sandboxControl('requests')) as {
      operation?: string;
      path?: string;
      orderNo?: string;
      body?: string;
    }[];
    const charges = requests.filter(
      (r) =>
        (r.operation === 'confirmCharge' || r.path?.endsWith('/confirmCharge')) &&
        JSON.stringify(r).includes(session.id),
    );
    expect(charges).toHaveLength(1);
  });

  it('two concurrent completions of one cart send one charge and make one order', async () => {
    const { token, email } = await registerCustomer();
    const card = await saveCard(token, CARDS.success);
    const { cartId, collectionId } = await readyCart({ token, email });
    const session = await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, token);
    const answers = await Promise.all([complete(cartId, token), complete(cartId, token)]);
    expect(answers.some((answer) => answer.status === 200 && answer.body.type === 'order')).toBe(true);
    const orders = await ordersOf(email);
    expect(orders).toHaveLength(1);
    expect(orders[0]!.payment_collections[0].payments).toHaveLength(1);
    const requests = (await sandboxControl('requests')) as { operation?: string; path?: string }[];
    const charges = requests.filter(
      (r) =>
        (r.operation === 'confirmCharge' || r.path?.endsWith('/confirmCharge')) &&
        JSON.stringify(r).includes(session.id),
    );
    expect(charges).toHaveLength(1);
  });
});
