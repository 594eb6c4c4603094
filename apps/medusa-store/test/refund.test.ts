import { describe, expect, it } from 'vitest';
import { adminOrder, adminTokenFor } from './support/admin';
import { complete, HOSTED, readyCart, startSession } from './support/checkout';
import { CARDS, finishHostedPage, followReturn } from './support/sandbox-pages';
import { api } from './support/store-api';

describe('refunds', () => {
  it('an admin refund answers a clear not-allowed message and changes nothing', async () => {
    const { cartId, collectionId } = await readyCart();
    const session = await startSession(collectionId, HOSTED);
    await followReturn(await finishHostedPage(session.data.redirectUrl, 'success', CARDS.success));
    const { body } = await complete(cartId);
    const before = await adminOrder(body.order.id);
    const payment = before.payment_collections[0].payments[0];

    const refund = await api('POST', `/admin/payments/${payment.id}/refund`, {
      token: await adminTokenFor(),
      body: { amount: 5 },
    });
    expect(refund.status).toBe(400);
    expect(refund.body.type).toBe('not_allowed');
    expect(refund.body.message).toMatch(/merchant portal/);

    const after = await adminOrder(body.order.id);
    expect(after.payment_status).toBe('captured');
    expect(after.payment_collections[0].payments[0].refunds ?? []).toHaveLength(0);
  });
});
