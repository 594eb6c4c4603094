import { describe, expect, it } from 'vitest';
import { CARD, complete, readyCart, startSession } from './support/checkout';
import { registerCustomer, saveCard } from './support/customer';
import { ordersOf } from './support/orders';
import { CARDS } from './support/sandbox-pages';
import { waitFor } from './support/wait';

describe('pending card (no redirect)', () => {
  it('places the order at once; the callback that settles the pending charge captures its payment', async () => {
    const { token, email } = await registerCustomer();
    const card = await saveCard(token, CARDS.pendingThenSuccess);
    const { cartId, collectionId } = await readyCart({ token, email });
    await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, token);
    const completed = await complete(cartId, token);
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
});
