/**
 * The card element, the default card path (docs/card-element.md), through the real Medusa app and the
 * sandbox over HTTP: the store route mints the token, the sandbox's element endpoint makes the payment
 * method (createElementPaymentMethod is the iframe's own call), the card provider charges it. Each honest
 * journey has its attack beside it.
 */
import { randomUUID } from 'node:crypto';
import { createElementPaymentMethod } from '@gatewaykit/sandbox';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { adminOrder, adminTokenFor } from './support/admin';
import { ADDRESS, CARD, complete, currentSession, HOSTED, readyCart, startSession } from './support/checkout';
import { registerCustomer, saveCard } from './support/customer';
import { sql } from './support/database';
import { uniqueEmail } from './support/email';
import { GATEWAY_NO, SECOND_GATEWAY_NO, SIGN_KEY } from './support/global-setup';
import { CARDS, finishHostedPage, followReturn, sandboxControl } from './support/sandbox-pages';
import { api, expectOk, type Json } from './support/store-api';

const SECOND_CARD = 'pp_gatewaykit_second';
const MONEY_MOVING = ['confirmCharge', 'checkoutPayment', 'localPayment'];

interface CardElement {
  session_token: string;
  script_url: string;
  expires_at: string;
}

function askCardElement(body: unknown, token?: string) {
  return api<Json>('POST', '/store/gatewaykit/card-element', { body, token });
}

async function cardElement(cartId: string, providerId = CARD, token?: string): Promise<CardElement> {
  return expectOk(askCardElement({ cart_id: cartId, provider_id: providerId }, token));
}

/** What the shopper's card iframe does: makes a payment method from the typed card under the token. */
async function elementMethod(sessionToken: string, cardNo: string): Promise<string> {
  const { customerPaymentMethodId } = await createElementPaymentMethod(inject('sandboxUrl'), sessionToken, {
    card: {
      cardNo,
      cardExpireMonth: '12',
      cardExpireYear: String(new Date().getFullYear() + 2),
      cardSecurityCode: '123',
    },
  });
  return customerPaymentMethodId;
}

function createSession(collectionId: string, data: unknown, token?: string, providerId = CARD) {
  return api<Json>('POST', `/store/payment-collections/${collectionId}/payment-sessions`, {
    token,
    body: { provider_id: providerId, data },
  });
}

async function sandboxRequests(): Promise<Json[]> {
  return (await sandboxControl('requests')) as Json[];
}

/** Money-moving requests the sandbox received whose logged request mentions `text`. */
async function chargesMentioning(text: string): Promise<Json[]> {
  return (await sandboxRequests()).filter(
    (request) => MONEY_MOVING.includes(request.operation ?? '') && JSON.stringify(request).includes(text),
  );
}

async function tokensMinted(): Promise<number> {
  return (await sandboxRequests()).filter((request) => request.operation === 'createSessionToken').length;
}

async function sessionRowsOf(collectionId: string): Promise<{ id: string }[]> {
  return sql(`SELECT id FROM payment_session WHERE payment_collection_id = $1 AND deleted_at IS NULL`, [
    collectionId,
  ]);
}

async function cartCompleted(cartId: string, token?: string): Promise<boolean> {
  const { cart } = await expectOk(api('GET', `/store/carts/${cartId}?fields=completed_at`, { token }));
  return Boolean(cart.completed_at);
}

async function savedCards(token: string): Promise<{ id: string; data: Json }[]> {
  return (await expectOk(api('GET', '/store/gatewaykit/payment-methods', { token }))).payment_methods;
}

describe('POST /store/gatewaykit/card-element', () => {
  it("answers the token, the gateway's SDK URL and the expiry; never the sign key", async () => {
    const { cartId } = await readyCart({
      email: uniqueEmail('element'),
    });
    const before = Date.now();
    const response = await askCardElement({ cart_id: cartId, provider_id: CARD });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['expires_at', 'script_url', 'session_token']);
    expect(response.body.session_token).toMatch(/^st_/);
    expect(response.body.script_url).toBe(`${inject('sandboxUrl')}/static/v3/js/AsiabillPayment.min.js`);
    const expires = Date.parse(response.body.expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 30 * 60_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 30 * 60_000);
    expect(JSON.stringify(response.body)).not.toContain(SIGN_KEY);
    // The token was minted by the first account (the card provider's own merchant).
    const [minted] = (await sandboxRequests()).filter((r) => r.operation === 'createSessionToken').slice(-1);
    expect(minted.gatewayNo).toBe(GATEWAY_NO);
    // The SDK the page loads is there.
    const sdk = await fetch(response.body.script_url);
    expect(sdk.status).toBe(200);
    expect(await sdk.text()).toContain('AsiabillPay');
  });

  it('needs the publishable key, like every store route', async () => {
    const { cartId } = await readyCart({
      email: uniqueEmail('element'),
    });
    const minted = await tokensMinted();
    const response = await fetch(`${inject('storeUrl')}/store/gatewaykit/card-element`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ cart_id: cartId, provider_id: CARD }),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(await tokensMinted()).toBe(minted);
  });
});

describe('card element: honest journeys', () => {
  it('a guest pays with an element card: order placed, payment captured, no customer on the charge', async () => {
    const email = uniqueEmail('guest');
    const { cartId, collectionId } = await readyCart({ email });
    const element = await cardElement(cartId);
    const method = await elementMethod(element.session_token, CARDS.success);
    expect(method).toMatch(/^pm_/);

    const session = await startSession(collectionId, CARD, { customerPaymentMethodId: method });
    expect(session.status).toBe('pending');
    expect(session.data.gatewayCustomerId).toBeUndefined();
    const completed = await complete(cartId);
    expect(completed.status).toBe(200);
    expect(completed.body.type).toBe('order');
    const order = await adminOrder(completed.body.order.id);
    expect(order.payment_status).toBe('captured');
    expect(order.payment_collections[0].payments[0].data.outcome.status).toBe('succeeded');

    const [charge] = await chargesMentioning(session.id);
    expect(JSON.parse(charge.body)).toMatchObject({ customerPaymentMethodId: method });
    expect(JSON.parse(charge.body)).not.toHaveProperty('customerId');
    // The method stays unattached: a guest's card is nobody's saved card.
    const state = await sandboxControl('state');
    const record = state.paymentMethods.find((m: Json) => m.customerPaymentMethodId === method);
    expect(record.customerId ?? null).toBeNull();
  });

  it('3-D Secure element card: requires_more with the challenge, then the return finishes the order', async () => {
    const { cartId, collectionId } = await readyCart({
      email: uniqueEmail('threeds'),
    });
    const method = await elementMethod((await cardElement(cartId)).session_token, CARDS.challenge);
    await startSession(collectionId, CARD, { customerPaymentMethodId: method });

    const first = await complete(cartId);
    expect(first.status).toBe(400);
    const pending = await currentSession(cartId);
    expect(pending.status).toBe('requires_more');
    expect(pending.data.redirectUrl).toMatch(/^http/);

    const storefront = await followReturn(await finishHostedPage(pending.data.redirectUrl, 'success'));
    expect(storefront.searchParams.get('outcome')).toBe('succeeded');
    const done = await complete(cartId);
    expect(done.status).toBe(200);
    expect(done.body.type).toBe('order');
    expect((await adminOrder(done.body.order.id)).payment_status).toBe('captured');
  });

  it('a declined element card leaves the cart open; a new card from the same form then pays', async () => {
    const { cartId, collectionId } = await readyCart({
      email: uniqueEmail('decline'),
    });
    const element = await cardElement(cartId);
    const declined = await elementMethod(element.session_token, CARDS.decline);
    await startSession(collectionId, CARD, { customerPaymentMethodId: declined });
    const refused = await complete(cartId);
    expect(refused.status).toBe(400);
    const failed = await currentSession(cartId);
    expect(failed.status).toBe('error');
    expect(failed.data.error).toMatch(/declin/i);
    expect(await cartCompleted(cartId)).toBe(false);

    const good = await elementMethod(element.session_token, CARDS.success);
    await startSession(collectionId, CARD, { customerPaymentMethodId: good });
    const done = await complete(cartId);
    expect(done.status).toBe(200);
    const order = await adminOrder(done.body.order.id);
    expect(order.payment_status).toBe('captured');
    expect(order.payment_collections[0].payments).toHaveLength(1);
  });

  it('a logged-in customer saves the card while paying: listed in the saved cards, and it pays the next cart', async () => {
    const { token, email } = await registerCustomer();
    const first = await readyCart({ token, email });
    const method = await elementMethod(
      (await cardElement(first.cartId, CARD, token)).session_token,
      CARDS.success,
    );
    const session = await startSession(
      first.collectionId,
      CARD,
      { customerPaymentMethodId: method, saveCard: true },
      token,
    );
    const gatewayCustomerId = session.data.gatewayCustomerId;
    expect(gatewayCustomerId).toMatch(/^cus_/);
    const paid = await complete(first.cartId, token);
    expect(paid.body.type).toBe('order');
    const order = await adminOrder(paid.body.order.id);
    expect(order.payment_status).toBe('captured');
    expect(order.payment_collections[0].payments[0].data).toMatchObject({ cardKept: 'attached' });
    const [charge] = await chargesMentioning(session.id);
    expect(JSON.parse(charge.body)).toMatchObject({
      customerPaymentMethodId: method,
      customerId: gatewayCustomerId,
    });

    expect(await savedCards(token)).toEqual([
      { id: method, data: { brand: expect.any(String), last4: '4242' } },
    ]);

    const next = await readyCart({ token, email });
    const again = await startSession(next.collectionId, CARD, { customerPaymentMethodId: method }, token);
    const reorder = await complete(next.cartId, token);
    expect(reorder.body.type).toBe('order');
    expect((await adminOrder(reorder.body.order.id)).payment_status).toBe('captured');
    const [second] = await chargesMentioning(again.id);
    expect(JSON.parse(second.body)).toMatchObject({
      customerPaymentMethodId: method,
      customerId: gatewayCustomerId,
    });
  });

  it('saveCard with 3-D Secure: the charge binds the card, which is a saved card after the challenge', async () => {
    const { token, email } = await registerCustomer();
    const { cartId, collectionId } = await readyCart({ token, email });
    const method = await elementMethod(
      (await cardElement(cartId, CARD, token)).session_token,
      CARDS.challenge,
    );
    await startSession(collectionId, CARD, { customerPaymentMethodId: method, saveCard: true }, token);
    expect((await complete(cartId, token)).status).toBe(400);
    const pending = await currentSession(cartId, token);
    expect(pending.status).toBe('requires_more');
    expect(await savedCards(token)).toEqual([]);

    await followReturn(await finishHostedPage(pending.data.redirectUrl, 'success'));
    const done = await complete(cartId, token);
    expect(done.body.type).toBe('order');
    expect((await savedCards(token)).map((card) => card.id)).toEqual([method]);
  });
});

describe('card element: attacks', () => {
  let secondRegionId: string;

  beforeAll(async () => {
    // A region whose card provider is the second merchant account's (provider entry "second").
    const admin = await adminTokenFor();
    const { region } = await expectOk(
      api('POST', '/admin/regions', {
        token: admin,
        body: {
          name: `Second account ${randomUUID()}`,
          currency_code: 'eur',
          countries: ['fr'],
          payment_providers: [SECOND_CARD],
        },
      }),
    );
    secondRegionId = region.id;
  });

  it("a guest's fresh element card named for another cart is refused, as a guest or saved by a customer; the guest still pays", async () => {
    const victim = await readyCart({ email: uniqueEmail('victim') });
    const method = await elementMethod((await cardElement(victim.cartId)).session_token, CARDS.success);
    await startSession(victim.collectionId, CARD, { customerPaymentMethodId: method });

    // Element ids are time-based, not secret: someone who learns or guesses one tries it on their cart.
    const thief = await readyCart({ email: uniqueEmail('thief') });
    const asGuest = await createSession(thief.collectionId, { customerPaymentMethodId: method });
    expect(asGuest.status).toBe(400);
    expect(asGuest.body.message).toContain(
      'data.customerPaymentMethodId: this card was entered for another checkout',
    );
    const customer = await registerCustomer();
    const own = await readyCart({ token: customer.token, email: customer.email });
    const saving = await createSession(
      own.collectionId,
      { customerPaymentMethodId: method, saveCard: true },
      customer.token,
    );
    expect(saving.status).toBe(400);
    expect(await sessionRowsOf(thief.collectionId)).toEqual([]);
    expect(await sessionRowsOf(own.collectionId)).toEqual([]);
    expect(await savedCards(customer.token)).toEqual([]);
    expect(await chargesMentioning(method)).toEqual([]);

    expect((await complete(victim.cartId)).body.type).toBe('order');
    expect(await chargesMentioning(method)).toHaveLength(1);
  });

  it("whoever holds a guest's cart id logs in and names the guest's fresh card on the same cart to save it: refused; the guest still pays", async () => {
    const guest = await readyCart({ email: uniqueEmail('guest-cart') });
    const method = await elementMethod((await cardElement(guest.cartId)).session_token, CARDS.success);
    await startSession(guest.collectionId, CARD, { customerPaymentMethodId: method });

    // The cart id is a bearer token: its holder may make sessions on the guest's own collection.
    const holder = await registerCustomer();
    for (const saveCard of [true, false]) {
      const stolen = await createSession(
        guest.collectionId,
        { customerPaymentMethodId: method, saveCard },
        holder.token,
      );
      expect(stolen.status).toBe(400);
      expect(stolen.body.message).toContain(
        'data.customerPaymentMethodId: this card was entered for another checkout',
      );
    }
    expect(await savedCards(holder.token)).toEqual([]);
    expect(await chargesMentioning(method)).toEqual([]);

    // The guest names the card again (their session may have been replaced meanwhile) and pays.
    await startSession(guest.collectionId, CARD, { customerPaymentMethodId: method });
    expect((await complete(guest.cartId)).body.type).toBe('order');
    const [charge] = await chargesMentioning(method);
    expect(JSON.parse(charge.body)).not.toHaveProperty('customerId');
    const state = await sandboxControl('state');
    const record = state.paymentMethods.find((m: Json) => m.customerPaymentMethodId === method);
    expect(record.customerId ?? null).toBeNull();
  });

  it("attack: whoever holds a guest's cart id, still a guest, ships the cart to themselves and names the guest's fresh card in a new session: refused, nothing charged; the guest still pays (found by review)", async () => {
    const guest = await readyCart({ email: uniqueEmail('guest-ship') });
    const method = await elementMethod((await cardElement(guest.cartId)).session_token, CARDS.success);
    await startSession(guest.collectionId, CARD, { customerPaymentMethodId: method });

    // Nothing is charged yet, so the cart may still change: the holder gives it their own address.
    const thief = { ...ADDRESS, first_name: 'Mallory', address_1: '1 Drop Street' };
    await expectOk(api('POST', `/store/carts/${guest.cartId}`, { body: { shipping_address: thief } }));
    const stolen = await createSession(guest.collectionId, { customerPaymentMethodId: method });
    expect(stolen.status).toBe(400);
    expect(stolen.body.message).toContain(
      'data.customerPaymentMethodId: this card was entered for another checkout',
    );
    expect(await chargesMentioning(method)).toEqual([]);
    expect(await cartCompleted(guest.cartId)).toBe(false);

    // The guest's own address back: the guest names the card again and pays.
    await expectOk(
      api('POST', `/store/carts/${guest.cartId}`, {
        body: { shipping_address: ADDRESS },
      }),
    );
    await startSession(guest.collectionId, CARD, { customerPaymentMethodId: method });
    expect((await complete(guest.cartId)).body.type).toBe('order');
    expect(await chargesMentioning(method)).toHaveLength(1);
  });

  it('two carts naming one fresh element card at once: exactly one may use it', async () => {
    const carts = await Promise.all([1, 2, 3, 4].map(() => readyCart({ email: uniqueEmail('race') })));
    const method = await elementMethod((await cardElement(carts[0]!.cartId)).session_token, CARDS.success);
    const answers = await Promise.all(
      carts.map((cart) => createSession(cart.collectionId, { customerPaymentMethodId: method })),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 400)).toHaveLength(3);
  });

  it("a method made under another merchant's token is unknown to this store's merchant: refused, nothing charged", async () => {
    const { cart } = await expectOk(
      api('POST', '/store/carts', { body: { region_id: secondRegionId, email: 'second@example.com' } }),
    );
    // The route mints with the second account for its own provider ...
    const foreign = await cardElement(cart.id, SECOND_CARD);
    const [minted] = (await sandboxRequests()).filter((r) => r.operation === 'createSessionToken').slice(-1);
    expect(minted.gatewayNo).toBe(SECOND_GATEWAY_NO);
    const method = await elementMethod(foreign.session_token, CARDS.success);
    const state = await sandboxControl('state');
    expect(state.paymentMethods.find((m: Json) => m.customerPaymentMethodId === method)?.gatewayNo).toBe(
      SECOND_GATEWAY_NO,
    );

    // ... and the first account's card provider never charges that method.
    const { cartId, collectionId } = await readyCart({
      email: uniqueEmail('foreign'),
    });
    const refused = await createSession(collectionId, { customerPaymentMethodId: method });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^data\.customerPaymentMethodId: no such card/);
    expect(await sessionRowsOf(collectionId)).toEqual([]);
    expect((await complete(cartId)).body.type).not.toBe('order');
    expect(await chargesMentioning(method)).toEqual([]);
  });

  it('the token route refuses what it should, with a 4xx naming the field, and mints nothing', async () => {
    const { cartId } = await readyCart({
      email: uniqueEmail('route'),
    });
    const paid = await readyCart({
      email: uniqueEmail('route-paid'),
    });
    const paidMethod = await elementMethod((await cardElement(paid.cartId)).session_token, CARDS.success);
    await startSession(paid.collectionId, CARD, { customerPaymentMethodId: paidMethod });
    expect((await complete(paid.cartId)).body.type).toBe('order');

    const cases: [string, unknown, number, RegExp][] = [
      [
        "another region's provider",
        { cart_id: cartId, provider_id: SECOND_CARD },
        400,
        /body\.provider_id: .*not enabled in the cart's region/,
      ],
      [
        'the hosted provider',
        { cart_id: cartId, provider_id: HOSTED },
        400,
        /body\.provider_id: not a gatewaykit card provider/,
      ],
      [
        "Medusa's system provider",
        { cart_id: cartId, provider_id: 'pp_system_default' },
        400,
        /body\.provider_id: not a gatewaykit card provider/,
      ],
      [
        'an unknown field',
        { cart_id: cartId, provider_id: CARD, gatewayNo: '87654321' },
        400,
        /body\.gatewayNo: is not accepted/,
      ],
      ['no cart', { provider_id: CARD }, 400, /body\.cart_id: is required/],
      [
        'a cart that does not exist',
        { cart_id: 'cart_01NOPE', provider_id: CARD },
        404,
        /body\.cart_id: no such cart/,
      ],
      [
        'a completed cart',
        { cart_id: paid.cartId, provider_id: CARD },
        400,
        /body\.cart_id: this cart is completed/,
      ],
      ['a card number as the cart', { cart_id: '4242424242424242', provider_id: CARD }, 400, /body\.cart_id/],
    ];
    const minted = await tokensMinted();
    for (const [name, body, status, message] of cases) {
      const response = await askCardElement(body);
      expect(response.status, name).toBe(status);
      expect(response.body.message, name).toMatch(message);
      expect(JSON.stringify(response.body), name).not.toMatch(/4242424242424242/);
    }
    expect(await tokensMinted()).toBe(minted);
  });

  it("another customer's saved card is refused for guests and other customers; nothing is charged", async () => {
    const NAMED_ELSEWHERE =
      'data.customerPaymentMethodId: this card was entered for another checkout; enter it again here';
    const victim = await registerCustomer();
    const victimCart = await readyCart({ token: victim.token, email: victim.email });
    const card = await elementMethod(
      (await cardElement(victimCart.cartId, CARD, victim.token)).session_token,
      CARDS.success,
    );
    await startSession(
      victimCart.collectionId,
      CARD,
      { customerPaymentMethodId: card, saveCard: true },
      victim.token,
    );
    expect((await complete(victimCart.cartId, victim.token)).body.type).toBe('order');
    expect((await savedCards(victim.token)).map((c) => c.id)).toEqual([card]);
    const chargesBefore = (await chargesMentioning(card)).length;

    const guest = await readyCart({
      email: uniqueEmail('thief'),
    });
    const asGuest = await createSession(guest.collectionId, { customerPaymentMethodId: card });
    expect(asGuest.status).toBe(400);
    // The gateway's record names no owner (as documented; docs/card-element.md#who-owns-a-card): the
    // card is refused as one first named at the victim's checkout.
    expect(asGuest.body.message).toBe(NAMED_ELSEWHERE);

    const attacker = await registerCustomer();
    const own = await readyCart({ token: attacker.token, email: attacker.email });
    const asOther = await createSession(own.collectionId, { customerPaymentMethodId: card }, attacker.token);
    expect(asOther.status).toBe(400);
    expect(asOther.body.message).toBe(NAMED_ELSEWHERE);
    // Not even by asking to "save" it.
    const saving = await createSession(
      own.collectionId,
      { customerPaymentMethodId: card, saveCard: true },
      attacker.token,
    );
    expect(saving.status).toBe(400);

    expect(await sessionRowsOf(guest.collectionId)).toEqual([]);
    expect(await sessionRowsOf(own.collectionId)).toEqual([]);
    expect((await complete(guest.cartId)).body.type).not.toBe('order');
    expect((await complete(own.cartId, attacker.token)).body.type).not.toBe('order');
    expect(await chargesMentioning(card)).toHaveLength(chargesBefore);
    expect((await savedCards(victim.token)).map((c) => c.id)).toEqual([card]);
  });

  it('a card saved through the raw-card route is refused for anyone else too', async () => {
    const victim = await registerCustomer();
    const card = await saveCard(victim.token, CARDS.success);
    const attacker = await registerCustomer();
    const own = await readyCart({ token: attacker.token, email: attacker.email });
    const refused = await createSession(
      own.collectionId,
      { customerPaymentMethodId: card.id },
      attacker.token,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain('data.customerPaymentMethodId');
    expect(await chargesMentioning(card.id)).toEqual([]);
  });

  it('saveCard as a guest is refused naming data.saveCard; nothing stored or charged', async () => {
    const { cartId, collectionId } = await readyCart({
      email: uniqueEmail('guest-save'),
    });
    const method = await elementMethod((await cardElement(cartId)).session_token, CARDS.success);
    const refused = await createSession(collectionId, { customerPaymentMethodId: method, saveCard: true });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^data\.saveCard: .*logged-in customer/);
    for (const saveCard of ['true', 1, { yes: true }]) {
      const bad = await createSession(collectionId, { customerPaymentMethodId: method, saveCard });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toMatch(/data\.saveCard: must be true or false/);
    }
    expect(await sessionRowsOf(collectionId)).toEqual([]);
    expect((await complete(cartId)).body.type).not.toBe('order');
    expect(await chargesMentioning(method)).toEqual([]);
  });

  it('an expired token cannot make a payment method, so there is nothing to charge', async () => {
    const { cartId } = await readyCart({
      email: uniqueEmail('expired'),
    });
    const element = await cardElement(cartId);
    const methodsBefore = (await sandboxControl('state')).paymentMethods.length;
    const { offsetMs } = await sandboxControl('clock');
    await sandboxControl('clock', { advanceMs: 31 * 60_000 });
    try {
      await expect(elementMethod(element.session_token, CARDS.success)).rejects.toThrow(
        /card element refused/,
      );
    } finally {
      await sandboxControl('clock', { offsetMs });
    }
    expect((await sandboxControl('state')).paymentMethods.length).toBe(methodsBefore);
    expect(await cartCompleted(cartId)).toBe(false);
  });
});
