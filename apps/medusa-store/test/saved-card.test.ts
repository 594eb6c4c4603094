import { GatewayClient } from '@gatewaykit/core';
import { describe, expect, inject, it } from 'vitest';
import { adminOrder } from './support/admin';
import { CARD, complete, readyCart, startSession } from './support/checkout';
import { registerCustomer, saveCard } from './support/customer';
import { sql } from './support/database';
import { GATEWAY_NO, SIGN_KEY } from './support/global-setup';
import { CARDS, sandboxControl } from './support/sandbox-pages';
import { api, expectOk } from './support/store-api';

/**
 * Each shopper (a guest when undefined) names the card in `data` at a checkout of their own: refused as
 * a card first named elsewhere, and the cart cannot complete.
 */
async function expectRefusedAtCheckouts(
  namers: readonly (readonly [{ token: string; email: string } | undefined, Record<string, unknown>])[],
): Promise<void> {
  for (const [who, data] of namers) {
    const cart = await readyCart(who ? { token: who.token, email: who.email } : {});
    const named = await api('POST', `/store/payment-collections/${cart.collectionId}/payment-sessions`, {
      token: who?.token,
      body: { provider_id: CARD, data },
    });
    expect(named.status).toBe(400);
    expect(JSON.stringify(named.body)).toContain('this card was entered for another checkout');
    expect((await complete(cart.cartId, who?.token)).status).not.toBe(200);
  }
}

describe('logged-in customer, saved card', () => {
  it('creates the gateway customer, saves, lists, charges without redirect, and deletes the card', async () => {
    const { token, email, customerId } = await registerCustomer();
    const saved = await saveCard(token, CARDS.success);
    expect(saved.id).toBeTruthy();
    expect(saved.data).toEqual({ brand: expect.any(String), last4: '4242' });

    const { payment_methods } = await expectOk(api('GET', '/store/gatewaykit/payment-methods', { token }));
    expect(payment_methods).toEqual([{ id: saved.id, data: { brand: saved.data.brand, last4: '4242' } }]);

    const { cartId, collectionId } = await readyCart({ token, email });
    const session = await startSession(collectionId, CARD, { customerPaymentMethodId: saved.id }, token);
    expect(session.status).toBe('pending');
    const completed = await complete(cartId, token);
    expect(completed.status).toBe(200);
    expect(completed.body.type).toBe('order');
    const order = await adminOrder(completed.body.order.id);
    expect(order.payment_status).toBe('captured');
    expect(order.payment_collections[0].payments[0].data.outcome.status).toBe('succeeded');

    // The customer's account holder is the gateway customer the card belongs to.
    const holders = await sql<{ external_id: string; provider_id: string }>(
      `SELECT ah.external_id, ah.provider_id FROM account_holder ah
       JOIN customer_account_holder link ON link.account_holder_id = ah.id
       WHERE link.customer_id = $1 AND link.deleted_at IS NULL`,
      [customerId],
    );
    expect(holders).toEqual([{ external_id: expect.any(String), provider_id: CARD }]);
    const state = await sandboxControl('state');
    const gatewayCustomer = state.customers.find(
      (c: { customerId: string }) => c.customerId === holders[0]!.external_id,
    );
    expect(gatewayCustomer?.email).toBe(email);
    const methods = state.paymentMethods.filter(
      (m: { customerId?: string }) => m.customerId === holders[0]!.external_id,
    );
    expect(methods.map((m: { customerPaymentMethodId: string }) => m.customerPaymentMethodId)).toContain(
      saved.id,
    );

    const deleted = await api('DELETE', `/store/gatewaykit/payment-methods/${saved.id}`, { token });
    expect(deleted.status).toBe(200);
    const after = await expectOk(api('GET', '/store/gatewaykit/payment-methods', { token }));
    expect(after.payment_methods).toEqual([]);

    // Detached, the card is attached to nobody, as a fresh card-element card is: naming its id as
    // one (ids are not secret) charges nothing, for a guest or another customer, saved or not.
    const detached = (await sandboxControl('state')).paymentMethods.find(
      (m: { customerPaymentMethodId: string }) => m.customerPaymentMethodId === saved.id,
    );
    expect(detached?.customerId).toBeFalsy();
    const mallory = await registerCustomer();
    await expectRefusedAtCheckouts([
      [undefined, { customerPaymentMethodId: saved.id }],
      [mallory, { customerPaymentMethodId: saved.id, saveCard: true }],
    ]);
    const charged = (await sandboxControl('state')).orders.filter(
      (o: { customerPaymentMethodId?: string }) => o.customerPaymentMethodId === saved.id,
    );
    expect(charged).toHaveLength(1);
  });

  it('a billing country the gateway cannot take (Medusa does not check it): completion refused with nothing sent, and the shopper can fix the address and pay (found by review)', async () => {
    const { token, email } = await registerCustomer();
    const saved = await saveCard(token, CARDS.success);
    const { cartId, collectionId } = await readyCart({ token, email });
    const billing = {
      first_name: 'Ada',
      last_name: 'Lovelace',
      address_1: '1 Test Street',
      city: 'Austin',
      postal_code: '73301',
    };
    await expectOk(
      api('POST', `/store/carts/${cartId}`, {
        token,
        body: { billing_address: { ...billing, country_code: 'usa' } },
      }),
    );
    const session = await startSession(collectionId, CARD, { customerPaymentMethodId: saved.id }, token);
    const refused = await complete(cartId, token);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/billing address/);
    expect(
      (await sandboxControl('state')).orders.filter((o: { orderNo: string }) => o.orderNo === session.id),
    ).toEqual([]);
    // Not marked sent: the cart is not held as if a charge were waiting for the gateway.
    const [stored] = await sql<{ data: { attemptedAt?: string } }>(
      'SELECT data FROM payment_session WHERE id = $1',
      [session.id],
    );
    expect(stored?.data.attemptedAt).toBeUndefined();
    expect(
      (
        await api('POST', `/store/carts/${cartId}`, {
          token,
          body: { billing_address: { ...billing, country_code: 'us' } },
        })
      ).status,
    ).toBe(200);
    await startSession(collectionId, CARD, { customerPaymentMethodId: saved.id }, token);
    const paid = await complete(cartId, token);
    expect(paid.status).toBe(200);
    expect(paid.body.type).toBe('order');
  });

  it('attack: a card saved outside the store (the portal, an older release) is retired once its owner lists their cards: nobody else takes it for an element card', async () => {
    const owner = await registerCustomer();
    await saveCard(owner.token, CARDS.success);
    const gatewayCustomer = (await sandboxControl('state')).customers.find(
      (c: { email?: string }) => c.email === owner.email,
    ).customerId as string;
    // Attached to the owner at the gateway, with no word to the store.
    const portal = new GatewayClient({
      gatewayNo: GATEWAY_NO,
      signKey: SIGN_KEY,
      baseUrl: inject('sandboxUrl'),
    });
    const outside = await portal.paymentMethods.create({
      customerId: gatewayCustomer,
      card: { cardNo: CARDS.success, cardExpireMonth: '12', cardExpireYear: '2030', cardSecurityCode: '123' },
      billingDetail: {
        email: owner.email,
        firstName: 'Ada',
        lastName: 'Lovelace',
        phone: '5550100',
        address: { line1: '1 Main Street', city: 'Paris', country: 'FR', postalCode: '75001' },
      },
    });
    await portal.close();
    const listed = await expectOk(api('GET', '/store/gatewaykit/payment-methods', { token: owner.token }));
    expect(listed.payment_methods.map((m: { id: string }) => m.id)).toContain(
      outside.customerPaymentMethodId,
    );

    const stranger = await registerCustomer();
    await expectRefusedAtCheckouts([
      [undefined, { customerPaymentMethodId: outside.customerPaymentMethodId }],
      [stranger, { customerPaymentMethodId: outside.customerPaymentMethodId, saveCard: true }],
    ]);
    // Still the owner's to pay with.
    const mine = await readyCart({ token: owner.token, email: owner.email });
    await startSession(
      mine.collectionId,
      CARD,
      { customerPaymentMethodId: outside.customerPaymentMethodId },
      owner.token,
    );
    expect((await complete(mine.cartId, owner.token)).body.type).toBe('order');
  });

  it('keeps saved cards private: a guest gets 401 and another customer 404', async () => {
    const owner = await registerCustomer();
    const saved = await saveCard(owner.token, CARDS.success);
    expect((await api('GET', '/store/gatewaykit/payment-methods')).status).toBe(401);
    const other = await registerCustomer();
    const { payment_methods } = await expectOk(
      api('GET', '/store/gatewaykit/payment-methods', { token: other.token }),
    );
    expect(payment_methods).toEqual([]);
    expect(
      (await api('DELETE', `/store/gatewaykit/payment-methods/${saved.id}`, { token: other.token })).status,
    ).toBe(404);
    const still = await expectOk(api('GET', '/store/gatewaykit/payment-methods', { token: owner.token }));
    expect(still.payment_methods).toHaveLength(1);

    // Named at a checkout by someone else: the gateway's record names no owner (as documented), and
    // a card saved from card data is retired for checkouts when it is made: no fresh element card.
    await expectRefusedAtCheckouts([
      [undefined, { customerPaymentMethodId: saved.id }],
      [other, { customerPaymentMethodId: saved.id }],
      [other, { customerPaymentMethodId: saved.id, saveCard: true }],
    ]);
    const charged = (await sandboxControl('state')).orders.filter(
      (o: { customerPaymentMethodId?: string }) => o.customerPaymentMethodId === saved.id,
    );
    expect(charged).toEqual([]);
    // The owner still pays with it, from their list at the gateway.
    const mine = await readyCart({ token: owner.token, email: owner.email });
    await startSession(mine.collectionId, CARD, { customerPaymentMethodId: saved.id }, owner.token);
    expect((await complete(mine.cartId, owner.token)).body.type).toBe('order');
  });
});
