import { describe, expect, it } from 'vitest';
import { adminOrder } from './support/admin';
import { CARD, complete, readyCart, startSession } from './support/checkout';
import { registerCustomer, saveCard } from './support/customer';
import { CARDS } from './support/sandbox-pages';
import { waitFor } from './support/wait';

describe('pending card (no redirect)', () => {
  it('places the order at once as pending_authorization; the later callback captures the payment', async () => {
    const { token, email } = await registerCustomer();
    const card = await saveCard(token, CARDS.pendingThenSuccess);
    const { cartId, collectionId } = await readyCart({ token, email });
    await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, token);
    const completed = await complete(cartId, token);
    expect(completed.status).toBe(200);
    expect(completed.body.type).toBe('order');
    const orderId = completed.body.order.id as string;

    const settled = await waitFor(async () => {
      const order = await adminOrder(orderId);
      return order.payment_status === 'captured' && order;
    }, 'the callback to capture the deferred payment');
    const payments = settled.payment_collections[0].payments;
    expect(payments).toHaveLength(1);
    expect(payments[0].data.outcome.status).toBe('succeeded');
  });
});
