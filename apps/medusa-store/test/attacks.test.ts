/**
 * The standing attack suite (docs/SECURITY.md): a shopper with only the public Store API and the
 * gateway's public facts tries to get goods for free, charge someone else's card, store card data, or
 * make the store charge twice. Each attack has its honest twin elsewhere in this folder.
 */
import { phpJsonEncode } from '@gatewaykit/core';
import { signedReturnQuery } from '@gatewaykit/core/testing';
import fc from 'fast-check';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { adminOrder, adminTokenFor } from './support/admin';
import { CARD, complete, currentSession, HOSTED, LOCAL, readyCart, startSession } from './support/checkout';
import { registerCustomer, saveCard, savedCardBody } from './support/customer';
import { sql } from './support/database';
import { uniqueEmail } from './support/email';
import { GATEWAY_NO, SECOND_GATEWAY_NO, SECOND_SIGN_KEY, SIGN_KEY } from './support/global-setup';
import { ordersOf } from './support/orders';
import { adminFeed, adminPayment, adminRefund, paidOrder, sandboxRefunds } from './support/payments';
import { CARDS, finishHostedPage, sandboxControl } from './support/sandbox-pages';
import { serverLog, serverLogSoFar } from './support/server-log';
import { postTransactionCallback, signedHeaders } from './support/signed-callback';
import { api, expectOk, type Json } from './support/store-api';
import { waitFor } from './support/wait';

const MONEY_MOVING = ['confirmCharge', 'checkoutPayment', 'localPayment'];

/** Money-moving requests the sandbox received whose logged request mentions `text`. */
async function chargesMentioning(text: string): Promise<Json[]> {
  const requests = (await sandboxControl('requests')) as { operation?: string }[];
  return requests.filter(
    (request) => MONEY_MOVING.includes(request.operation ?? '') && JSON.stringify(request).includes(text),
  );
}

function createSession(collectionId: string, providerId: string, data: unknown, token?: string) {
  return api('POST', `/store/payment-collections/${collectionId}/payment-sessions`, {
    token,
    body: { provider_id: providerId, data },
  });
}

async function sessionRowsOf(collectionId: string): Promise<{ id: string; data: string }[]> {
  return sql(`SELECT id, data::text AS data FROM payment_session WHERE payment_collection_id = $1`, [
    collectionId,
  ]);
}

/** 13–19 digits with optional single separators: what a card number looks like in any text. */
const CARD_LIKE = /\d(?:[ -]?\d){12,18}/;

afterEach(async () => {
  await sandboxControl('faults', undefined, 'DELETE');
  await sandboxControl('chaos', undefined, 'DELETE');
});

describe('attack: a paid order without paying', () => {
  it('a forged outcome in session data is refused with a 400 naming it; nothing is stored, charged or ordered', async () => {
    const email = uniqueEmail('forger');
    const { cartId, collectionId } = await readyCart({ email });
    const forged = {
      outcome: { status: 'succeeded', orderNo: 'x' },
      attemptedAt: new Date().toISOString(),
      // Would make the reconciliation leave a stored success to a person without reporting it.
      unappliedReportedAt: new Date().toISOString(),
      // Would hold the cart (due), or silence ORDER NOT PAID and PAYMENT NOT SETTLED.
      unpaidOrderCheck: 'due',
      handedOverAt: new Date().toISOString(),
    };
    for (const provider of [CARD, HOSTED, LOCAL]) {
      const response = await createSession(collectionId, provider, forged);
      expect(response.status).toBe(400);
      expect(response.body.message).toMatch(/data\.outcome: is not accepted/);
      expect(response.body.message).toMatch(/data\.attemptedAt: is not accepted/);
      expect(response.body.message).toMatch(/data\.unappliedReportedAt: is not accepted/);
      expect(response.body.message).toMatch(/data\.unpaidOrderCheck: is not accepted/);
      expect(response.body.message).toMatch(/data\.handedOverAt: is not accepted/);
    }
    expect(await sessionRowsOf(collectionId)).toEqual([]);
    const completed = await complete(cartId);
    expect(completed.body.type).not.toBe('order');
    expect(await ordersOf(email)).toEqual([]);
    expect(await chargesMentioning(email)).toEqual([]);
  });

  it("the providers that take no money (Medusa's system provider, the bench's instant capture) cannot be chosen", async () => {
    const email = uniqueEmail('freeloader');
    const { cartId, collectionId } = await readyCart({ email });
    for (const provider of ['pp_system_default', 'pp_instant-capture_bench']) {
      const response = await createSession(collectionId, provider, {});
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
    }
    expect(await sessionRowsOf(collectionId)).toEqual([]);
    expect((await complete(cartId)).body.type).not.toBe('order');
    expect(await ordersOf(email)).toEqual([]);
  });

  it('provider-owned keys beside an honest one are refused too (no partial acceptance)', async () => {
    const { token, email } = await registerCustomer();
    const card = await saveCard(token, CARDS.decline);
    const { cartId, collectionId } = await readyCart({ token, email });
    const response = await createSession(
      collectionId,
      CARD,
      { customerPaymentMethodId: card.id, outcome: { status: 'succeeded' }, redirectUrl: 'http://evil.test' },
      token,
    );
    expect(response.status).toBe(400);
    // Who chose the payment is the server's to record (the customer rule), never the storefront's.
    const chooser = await createSession(
      collectionId,
      CARD,
      { customerPaymentMethodId: card.id, medusaCustomerId: 'cus_someone_else' },
      token,
    );
    expect(chooser.status).toBe(400);
    expect(chooser.body.message).toContain('medusaCustomerId');
    expect(await sessionRowsOf(collectionId)).toEqual([]);
    expect((await complete(cartId, token)).body.type).not.toBe('order');
  });
});

/** A registered customer with a saved card and a cart ready to pay, shipped to them (Ada). */
async function ownerWithCart(cardNo: string = CARDS.success) {
  const owner = await registerCustomer();
  const card = await saveCard(owner.token, cardNo);
  const cart = await readyCart({ token: owner.token, email: owner.email });
  return { owner, card, ...cart };
}

/** The owner completes their cart: an order, shipped where they said. */
async function ownerPays(cartId: string, token: string): Promise<void> {
  const paid = await complete(cartId, token);
  expect(paid.body.type).toBe('order');
  expect(paid.body.order.shipping_address.first_name).toBe('Ada');
}

/** Whoever holds the cart id (a guest, or `token`'s customer) cannot send its goods to Mallory. */
async function expectMoveRefused(cartId: string, token: string | undefined): Promise<void> {
  const moved = await api('POST', `/store/carts/${cartId}`, { token, body: { shipping_address: MALLORY } });
  expect(moved.status).toBe(400);
  expect(moved.body.message).toMatch(/^Cannot change: this cart is being paid with the payment/);
}

/** Where whoever holds a cart id would have the goods sent. */
const MALLORY = {
  first_name: 'Mallory',
  address_1: '1 Drop Street',
  city: 'Austin',
  country_code: 'us',
  province: 'us-tx',
  postal_code: '73301',
};

describe("attack: charging someone else's saved card", () => {
  it('a guest cart and another customer are refused before anything is stored or charged', async () => {
    const victim = await registerCustomer();
    const card = await saveCard(victim.token, CARDS.success);

    const guestEmail = uniqueEmail('guest');
    const guest = await readyCart({ email: guestEmail });
    const asGuest = await createSession(guest.collectionId, CARD, { customerPaymentMethodId: card.id });
    expect(asGuest.status).toBe(400);
    expect(asGuest.body.message).toContain('data.customerPaymentMethodId');

    const attacker = await registerCustomer();
    const own = await readyCart({ token: attacker.token, email: attacker.email });
    const asOther = await createSession(
      own.collectionId,
      CARD,
      { customerPaymentMethodId: card.id },
      attacker.token,
    );
    expect(asOther.status).toBe(400);

    expect(await sessionRowsOf(guest.collectionId)).toEqual([]);
    expect(await sessionRowsOf(own.collectionId)).toEqual([]);
    expect((await complete(guest.cartId)).body.type).not.toBe('order');
    expect(await chargesMentioning(card.id)).toEqual([]);
  });

  it("attack: whoever holds a registered customer's cart id (another customer, or a guest) cannot choose its gatewaykit payment, so cannot lock its owner out; the owner still pays (found by review)", async () => {
    const owner = await registerCustomer();
    const { cartId, collectionId } = await readyCart({ token: owner.token, email: owner.email });
    const other = await registerCustomer();
    for (const token of [other.token, undefined]) {
      for (const provider of [CARD, HOSTED]) {
        const taken = await createSession(collectionId, provider, {}, token);
        expect(taken.status).toBe(400);
        expect(taken.body.message).toBe(
          'This cart belongs to a registered customer: only that customer, logged in, can choose its payment',
        );
      }
    }
    expect(await sessionRowsOf(collectionId)).toEqual([]);
    const card = await saveCard(owner.token, CARDS.success);
    await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, owner.token);
    expect((await complete(cartId, owner.token)).body.type).toBe('order');
  });

  it('the owner pays with it, and the charge names the owner as gateway customer', async () => {
    const owner = await registerCustomer();
    const card = await saveCard(owner.token, CARDS.success);
    const { cartId, collectionId } = await readyCart({ token: owner.token, email: owner.email });
    const session = await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, owner.token);
    expect(session.data.gatewayCustomerId).toEqual(expect.any(String));
    expect((await complete(cartId, owner.token)).body.type).toBe('order');
    const [charge] = await chargesMentioning(session.id);
    expect(JSON.stringify(charge)).toContain(session.data.gatewayCustomerId);
  });

  it("after the owner's card is declined, whoever holds the cart id still cannot send the goods elsewhere or complete; the owner retries and pays", async () => {
    const { owner, card: declining, cartId, collectionId } = await ownerWithCart(CARDS.decline);
    const good = await saveCard(owner.token, CARDS.success);
    await startSession(collectionId, CARD, { customerPaymentMethodId: declining.id }, owner.token);
    const declined = await complete(cartId, owner.token);
    expect(declined.status).toBe(400);
    expect(declined.body.message).toMatch(/was not authorized/);
    const other = await registerCustomer();
    for (const token of [undefined, other.token]) {
      await expectMoveRefused(cartId, token);
      expect((await complete(cartId, token)).body.message).toMatch(/^Cannot complete/);
    }
    await startSession(collectionId, CARD, { customerPaymentMethodId: good.id }, owner.token);
    await ownerPays(cartId, owner.token);
  });

  it('the owner moves the goods and the email after choosing their card (the total unchanged, so Medusa keeps the session): the completion is refused until the session is made again, and the card is never charged with the old details (found by review)', async () => {
    const { owner, card, cartId, collectionId } = await ownerWithCart();
    const first = await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, owner.token);
    const moved = await api('POST', `/store/carts/${cartId}`, {
      token: owner.token,
      body: { shipping_address: { ...MALLORY, last_name: 'Lovelace' }, email: uniqueEmail('moved') },
    });
    expect(moved.status).toBe(200);
    expect((await currentSession(cartId, owner.token)).id).toBe(first.id);
    const refused = await complete(cartId, owner.token);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(
      /^Cannot complete: the cart's email, name, addresses or items changed/,
    );
    expect(await chargesMentioning(first.id)).toEqual([]);
    const second = await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, owner.token);
    const paid = await complete(cartId, owner.token);
    expect(paid.body.type).toBe('order');
    const [charge] = await chargesMentioning(second.id);
    expect(JSON.stringify(charge)).toContain('1 Drop Street');
  });

  it("a change or completion sent while the owner's payment session is being made waits for it, and is then refused", async () => {
    const { owner, card, cartId, collectionId } = await ownerWithCart();
    // A slow gateway keeps the session's card check in flight: Medusa has inserted the session's row,
    // but not yet the customer who chose it.
    await sandboxControl('faults', { route: 'retrievePaymentMethod', kind: 'latency', ms: 1500 });
    const making = createSession(collectionId, CARD, { customerPaymentMethodId: card.id }, owner.token);
    await waitFor(
      async () => (await sessionRowsOf(collectionId)).length > 0,
      "the owner's session row to be inserted",
    );
    const [moved, completed] = await Promise.all([
      api('POST', `/store/carts/${cartId}`, { body: { shipping_address: MALLORY } }),
      complete(cartId),
    ]);
    expect((await making).status).toBe(200);
    expect(moved.status).toBe(400);
    expect(moved.body.message).toMatch(/^Cannot change/);
    expect(completed.status).toBe(400);
    expect(completed.body.message).toMatch(/^Cannot complete/);
    expect(await ordersOf(owner.email)).toEqual([]);
    await ownerPays(cartId, owner.token);
  });

  it("whoever holds the owner's cart id can neither change it nor complete it with the owner's card (guest or another customer); the owner can", async () => {
    const { owner, card, cartId, collectionId } = await ownerWithCart();
    const session = await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, owner.token);
    // The cart id is a bearer token in Medusa: its holder tries to send the goods elsewhere first.
    const other = await registerCustomer();
    for (const token of [undefined, other.token]) {
      await expectMoveRefused(cartId, token);
      const added = await api('POST', `/store/carts/${cartId}/line-items`, {
        token,
        body: { variant_id: 'variant_madeup', quantity: 1 },
      });
      expect(added.status).toBe(400);
      expect(added.body.message).toMatch(/^Cannot change/);
      // Nor can they replace the customer's session with one of their own, which would lift the rule.
      const replaced = await createSession(collectionId, HOSTED, {}, token);
      expect(replaced.status).toBe(400);
      expect(replaced.body.message).toMatch(/^Cannot change/);
    }
    expect((await sessionRowsOf(collectionId)).map((row) => row.id)).toEqual([session.id]);
    // The customer's own requests change it as before.
    await expectOk(
      api('POST', `/store/carts/${cartId}`, { token: owner.token, body: { email: owner.email } }),
    );
    const { cart } = await expectOk(api('GET', `/store/carts/${cartId}`, { token: owner.token }));
    expect(cart.shipping_address.first_name).toBe('Ada');
    const asGuest = await complete(cartId);
    expect(asGuest.status).toBe(400);
    expect(asGuest.body.message).toContain('log in as that customer');
    const asOther = await complete(cartId, other.token);
    expect(asOther.status).toBe(400);
    expect(asOther.body.message).toContain('another customer chose');
    expect(await chargesMentioning(session.id)).toEqual([]);
    expect(await ordersOf(owner.email)).toEqual([]);

    expect((await complete(cartId, owner.token)).body.type).toBe('order');
    expect(await chargesMentioning(session.id)).toHaveLength(1);
  });
});

describe('attack: card data in session data', () => {
  const payloads: Record<string, unknown>[] = [
    { note: { cardNo: '4242424242424242', cvv: '123' } },
    { pan: '4242424242424242', securityCode: '123' },
    { memo: 'card 4242 4242 4242 4242 exp 12/30' },
    { list: [{ deep: ['4000-0000-0000-9995'] }] },
    { customerPaymentMethodId: '4242 4242 4242 4242' },
    // A letter glued on: an id's characters, not an id's shape (found by review).
    { customerPaymentMethodId: '4242424242424242x' },
    { localMethod: '4242424242424242' },
  ];
  it('is refused before storage, on every provider, and never echoed back', async () => {
    const { collectionId } = await readyCart({
      email: uniqueEmail('pan'),
    });
    for (const provider of [CARD, HOSTED, LOCAL]) {
      for (const data of payloads) {
        const response = await createSession(collectionId, provider, data);
        expect(response.status, JSON.stringify(Object.keys(data))).toBe(400);
        expect(JSON.stringify(response.body)).not.toMatch(CARD_LIKE);
      }
      // Not even as the whole of `data` (Medusa's own validator would repeat it in its answer and log).
      const bare = await createSession(collectionId, provider, '4242 4242 4242 4242');
      expect(bare.status).toBe(400);
      expect(JSON.stringify(bare.body)).not.toMatch(CARD_LIKE);
    }
    expect(await sessionRowsOf(collectionId)).toEqual([]);
    expect(await serverLogSoFar()).not.toMatch(/4242[ -]?4242[ -]?4242[ -]?4242/);
  });

  it('a body that is not JSON, holding a card number, is never echoed in the answer or the log (Medusa parses it before any route runs; found by review)', async () => {
    const { collectionId } = await readyCart();
    const bodies = ['5555555555554444', '"5555 5555 5555 4444"', '{"card": {"cardNo": 5555555555554444'];
    for (const path of [
      '/store/gatewaykit/payment-methods',
      `/store/payment-collections/${collectionId}/payment-sessions`,
    ]) {
      for (const rawBody of bodies) {
        const response = await api('POST', path, { rawBody });
        expect(response.status, `${path} ${rawBody}`).toBe(400);
        expect(JSON.stringify(response.body)).not.toMatch(/5555[ -]?5555[ -]?5555[ -]?4444/);
      }
    }
    expect(await serverLogSoFar()).not.toMatch(/5555[ -]?5555[ -]?5555[ -]?4444/);
  });
});

/** A `transaction.success` for `session`, signed with the second account's key, posted to `path`. */
function postSecondAccountSuccess(
  path: string,
  session: { id: string; data: Record<string, Json> },
  tradeNo: string,
) {
  return postTransactionCallback(
    session,
    { status: 'success', tradeNo, orderInfo: 'Approved' },
    { path, gatewayNo: SECOND_GATEWAY_NO, signKey: SECOND_SIGN_KEY },
  );
}

describe('attack: a return that names one session with the trade of another', () => {
  it("signed with the store's own key (what moving characters between orderInfo and orderNo gives when orderNos end one another), it settles nothing: the gateway's record of the trade names another orderNo", async () => {
    const target = await readyCart({ email: uniqueEmail('shifted') });
    const targetSession = await startSession(target.collectionId, HOSTED);
    const paid = await readyCart({ email: uniqueEmail('paid') });
    const paidSession = await startSession(paid.collectionId, HOSTED);
    // The other cart is really paid on its page (its callback pays it).
    await finishHostedPage(String(paidSession.data.redirectUrl), 'success', CARDS.success);
    const { orders } = await sandboxControl('state');
    const trade = orders.find((o: { orderNo: string }) => o.orderNo === paidSession.id);
    expect(trade?.orderStatus).toBe('success');
    const query = signedReturnQuery(
      {
        code: '0000',
        gatewayNo: GATEWAY_NO,
        maskCardNo: '424242***4242',
        orderAmount: String(targetSession.data.amount),
        orderCurrency: String(targetSession.data.currency),
        orderInfo: 'Approved',
        orderNo: targetSession.id,
        orderStatus: 'success',
        tradeNo: String(trade?.tradeNo),
      },
      SIGN_KEY,
    );
    const returned = await fetch(`${inject('storeUrl')}/hooks/gatewaykit/return?${query}`, {
      redirect: 'manual',
    });
    expect(returned.status).toBe(401);
    const after = await currentSession(target.cartId);
    expect(after.data.outcome.status).toBe('redirect');
    expect((await complete(target.cartId)).body.type).not.toBe('order');
  });
});

describe("attack: another account's key", () => {
  it("a callback or return verified with a second account's key never settles a session of the first", async () => {
    const email = uniqueEmail('cross');
    const { cartId, collectionId } = await readyCart({ email });
    const session = await startSession(collectionId, HOSTED);
    const callback = await postSecondAccountSuccess('/hooks/gatewaykit/callback', session, 'T-forged');
    // Verified, but not a session of the second account: acknowledged, nothing changes.
    expect(callback.status).toBe(200);

    const query = signedReturnQuery(
      {
        code: '0000',
        gatewayNo: SECOND_GATEWAY_NO,
        maskCardNo: '424242***4242',
        orderAmount: String(session.data.amount),
        orderCurrency: String(session.data.currency),
        orderInfo: 'Approved',
        orderNo: session.id,
        orderStatus: 'success',
        tradeNo: 'T-forged',
      },
      SECOND_SIGN_KEY,
    );
    const returned = await fetch(`${inject('storeUrl')}/hooks/gatewaykit/return?${query}`, {
      redirect: 'manual',
    });
    expect(returned.status).toBe(404);

    const after = await currentSession(cartId);
    expect(after.status).toBe('requires_more');
    expect(after.data.outcome.status).toBe('redirect');
    expect((await complete(cartId)).body.type).not.toBe('order');
    expect(await ordersOf(email)).toEqual([]);
  });
});

describe('attack: saving a card (POST /store/gatewaykit/payment-methods)', () => {
  const cardsSaved = async () =>
    ((await sandboxControl('requests')) as { operation?: string }[]).filter(
      (request) => request.operation === 'createPaymentMethod',
    ).length;

  it("a guest, a body naming a gateway customer (someone else's), and fields not on the allow-list are refused by name; nothing reaches the gateway", async () => {
    const victim = await registerCustomer();
    const victimCard = await saveCard(victim.token, CARDS.success);
    // The victim's gateway customer, as the card's saving sent it.
    const victimGatewayId = ((await sandboxControl('requests')) as { operation?: string; body?: string }[])
      .filter((request) => request.operation === 'createPaymentMethod')
      .map((request) => (JSON.parse(request.body ?? '{}') as { customerId?: string }).customerId)
      .at(-1);
    expect(victimGatewayId).toEqual(expect.any(String));
    const attacker = await registerCustomer();
    const before = await cardsSaved();

    const guest = await api('POST', '/store/gatewaykit/payment-methods', {
      body: savedCardBody(CARDS.success),
    });
    expect(guest.status).toBe(401);
    const named = await api('POST', '/store/gatewaykit/payment-methods', {
      token: attacker.token,
      body: { ...savedCardBody(CARDS.success), customerId: victimGatewayId },
    });
    expect(named.status).toBe(400);
    expect(named.body.message).toMatch(/customerId/);
    const extra = await api('POST', '/store/gatewaykit/payment-methods', {
      token: attacker.token,
      body: { ...savedCardBody(CARDS.success), setAsDefault: true },
    });
    expect(extra.status).toBe(400);
    expect(extra.body.message).toMatch(/setAsDefault/);
    for (const answer of [guest, named, extra]) expect(JSON.stringify(answer.body)).not.toMatch(CARD_LIKE);

    expect(await cardsSaved()).toBe(before);
    // The victim's cards are as they were; the attacker has none.
    const listed = async (token: string) =>
      (await expectOk(api('GET', '/store/gatewaykit/payment-methods', { token }))).payment_methods as Json[];
    expect((await listed(victim.token)).map((method) => method.id)).toEqual([victimCard.id]);
    expect(await listed(attacker.token)).toEqual([]);
  });
});

describe("attack: the shopper's address", () => {
  it("a forged X-Forwarded-For that is no single address is not kept as the shopper's IP (127.0.0.1 stands in); a real one is", async () => {
    const { owner, card, collectionId } = await ownerWithCart();
    const ipOf = async (forwardedFor: string) => {
      const answer = await api('POST', `/store/payment-collections/${collectionId}/payment-sessions`, {
        token: owner.token,
        headers: { 'x-forwarded-for': forwardedFor },
        body: { provider_id: CARD, data: { customerPaymentMethodId: card.id } },
      });
      expect(answer.status, forwardedFor).toBe(200);
      const sessions = answer.body.payment_collection.payment_sessions as Json[];
      return sessions.find((session) => session.provider_id === CARD)?.data.buyer?.ip;
    };
    expect(await ipOf('203.0.113.9')).toBe('203.0.113.9');
    for (const forged of ['not-an-address', '<script>x</script>', '4242424242424242']) {
      expect(await ipOf(forged), forged).toBe('127.0.0.1');
    }
  });
});

describe("attack: Medusa's stock webhook route", () => {
  it("a success signed with another entry's key and sent to /hooks/payment/… charges and completes nothing", async () => {
    const { owner, card, cartId, collectionId } = await ownerWithCart();
    const session = await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, owner.token);
    const ignored = () => serverLog().split("a request to Medusa's payment webhook route was ignored").length;
    const before = ignored();
    // The second entry's key (a staff or test account's key may be public) names the main entry's session.
    const hook = await postSecondAccountSuccess('/hooks/payment/gatewaykit_second', session, 'T-stock-route');
    expect(hook.status).toBe(200);
    // Medusa queues the event and hands it to the provider after its webhook delay (5 s); the provider
    // says it ignored it. Only then is "nothing happened" worth checking.
    await waitFor(async () => ignored() > before, 'the provider to be handed the webhook');
    expect(await chargesMentioning(session.id)).toEqual([]);
    expect(await ordersOf(owner.email)).toEqual([]);
    const after = await currentSession(cartId, owner.token);
    expect(after.data.attemptedAt).toBeUndefined();
  });
});

describe('attack: a second charge, and a payment lost', () => {
  it('while a charge has no known outcome, its session is kept and no other payment starts; the callback completes the order once', async () => {
    const { token, email } = await registerCustomer();
    const card = await saveCard(token, CARDS.success);
    const { cartId, collectionId } = await readyCart({ token, email });
    const session = await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, token);
    await sandboxControl('chaos', { delayMs: 4000 });
    await sandboxControl('faults', { route: 'confirmCharge', kind: 'commit-then-drop' });
    const first = await complete(cartId, token);
    expect(first.body.type).not.toBe('order');
    await sandboxControl('faults', undefined, 'DELETE');

    // The shopper tries again another way while the gateway's answer is still out.
    const again = await createSession(collectionId, HOSTED, {}, token);
    expect(again.status).toBe(400);
    expect(again.body.message).toMatch(/still being confirmed/);
    // Nor can the cart change under it (Medusa would replace its payment sessions).
    const { cart } = await expectOk(api('GET', `/store/carts/${cartId}`, { token }));
    const changed = await api('POST', `/store/carts/${cartId}/line-items`, {
      token,
      body: { variant_id: cart.items[0].variant_id, quantity: 1 },
    });
    expect(changed.status).toBe(400);
    expect(changed.body.message).toMatch(/still being confirmed/);
    expect((await sessionRowsOf(collectionId)).map((row) => row.id)).toEqual([session.id]);

    const order = await waitFor(async () => {
      const response = await complete(cartId, token);
      return response.status === 200 && response.body.type === 'order' && response.body.order;
    }, 'the held callback to complete the order');
    expect((await ordersOf(email)).map((o) => o.id)).toEqual([order.id]);
    // One charge for the session; no hosted page was opened for the cart (it would carry the email).
    expect(await chargesMentioning(session.id)).toHaveLength(1);
    expect(await chargesMentioning(email)).toEqual([]);
  });

  it('a new payment session racing the completion of the cart never replaces a session being charged', async () => {
    const { token, email } = await registerCustomer();
    const card = await saveCard(token, CARDS.success);
    const { cartId, collectionId } = await readyCart({ token, email });
    const session = await startSession(collectionId, CARD, { customerPaymentMethodId: card.id }, token);
    // A slow gateway keeps the charge in flight while the other request arrives.
    await sandboxControl('faults', { route: 'confirmCharge', kind: 'latency', ms: 1500 });
    const [completed, replaced] = await Promise.all([
      complete(cartId, token),
      createSession(collectionId, HOSTED, {}, token),
    ]);
    const charged = await chargesMentioning(session.id);
    expect(charged.length).toBeLessThanOrEqual(1);
    // Whichever came first, the other saw it: a session that was charged was never replaced.
    if (replaced.status === 200) expect(charged).toEqual([]);
    else expect(completed.body.type).toBe('order');
    expect(await serverLogSoFar()).not.toContain(
      `PAID BUT NOT APPLIED: Gateway payment orderNo ${session.id}`,
    );
  });

  it('a payment made on the page of a replaced session is acknowledged and reported loudly', async () => {
    const email = uniqueEmail('replaced');
    const { collectionId } = await readyCart({ email });
    const abandoned = await startSession(collectionId, HOSTED);
    await startSession(collectionId, HOSTED);
    expect((await sessionRowsOf(collectionId)).map((row) => row.id)).not.toContain(abandoned.id);

    // The shopper pays on the old page; the return is never followed, only the callback arrives.
    await finishHostedPage(abandoned.data.redirectUrl, 'success', CARDS.success);
    const deliveries = await waitFor(async () => {
      const all = (await sandboxControl('callbacks')) as { orderNo: string; state: string }[];
      const mine = all.filter((delivery) => delivery.orderNo === abandoned.id);
      return mine.length > 0 && mine.every((delivery) => delivery.state === 'delivered') && mine;
    }, 'the callback of the abandoned page to be acknowledged');
    expect(deliveries.length).toBeGreaterThan(0);

    const log = await serverLogSoFar();
    expect(log).toMatch(
      new RegExp(`PAID BUT NOT APPLIED: Gateway payment orderNo ${abandoned.id}, tradeNo \\S+`),
    );
    const { adminTokenFor } = await import('./support/admin');
    const notifications = await api('GET', '/admin/notifications?limit=200', {
      token: await adminTokenFor(),
    });
    expect(JSON.stringify(notifications.body)).toContain(abandoned.id);
  });
});

describe('attack: junk at the routes and middlewares the plugin adds', () => {
  it('unsigned or malformed callbacks and returns are refused (401); nothing changes', async () => {
    const email = uniqueEmail('junk');
    const { cartId, collectionId } = await readyCart({ email });
    const session = await startSession(collectionId, HOSTED);
    const forgedSuccess = JSON.stringify({
      type: 'transaction.success',
      data: {
        orderNo: session.id,
        orderStatus: 'success',
        orderAmount: session.data.amount,
        orderCurrency: 'USD',
      },
    });
    const callbacks = [
      { rawBody: forgedSuccess, headers: {} },
      {
        rawBody: 'not json',
        headers: { 'gateway-no': '12345678', 'sign-info': 'x', 'request-time': 'soon' },
      },
      { rawBody: forgedSuccess, headers: { 'gateway-no': ['12345678', '1'].join(','), 'request-id': '' } },
    ];
    for (const callback of callbacks) {
      const answer = await api(
        'POST',
        '/hooks/gatewaykit/callback',
        callback as { rawBody: string; headers: Record<string, string> },
      );
      // The route reads raw bytes (no JSON parser answers first): every one is unverifiable, 401.
      expect(answer.status, `${callback.rawBody.slice(0, 10)}`).toBe(401);
    }
    // Far larger than any gateway callback: refused (413) before it is buffered (or the reset, if the
    // client was still sending); the route still answers afterwards.
    const big = await fetch(`${inject('storeUrl')}/hooks/gatewaykit/callback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"type":"transaction.success","data":{"orderInfo":"${'x'.repeat(300 * 1024)}"}}`,
    }).catch((error: unknown) => error);
    expect(big instanceof Error ? 'reset' : String((big as Response).status)).toMatch(/^(413|reset)$/);
    expect(
      (await api('POST', '/hooks/gatewaykit/callback', { rawBody: forgedSuccess, headers: {} })).status,
    ).toBe(401);
    for (const query of [
      `orderNo=${session.id}&orderStatus=success`,
      `orderNo=${session.id}&orderStatus=success&signInfo=00&signInfo=11`,
      'signInfo[]=1&orderNo[]=x',
    ]) {
      const answer = await fetch(`${inject('storeUrl')}/hooks/gatewaykit/return?${query}`, {
        redirect: 'manual',
      });
      expect(answer.status).toBe(401);
    }
    expect((await currentSession(cartId)).data.outcome.status).toBe('redirect');
    expect(await ordersOf(email)).toEqual([]);
  });

  it('a session for an unknown payment collection, or a cart whose billing country is a pattern, is refused without a 5xx or a gateway call', async () => {
    const unknown = await createSession('pay_col_01NOSUCHCOLLECTION000000', HOSTED, {});
    // Medusa's own workflow answered this with a 500 (a TypeError on the missing collection).
    expect(unknown.status, JSON.stringify(unknown.body)).toBe(404);

    const email = uniqueEmail('pattern');
    const { cartId, collectionId } = await readyCart({ email });
    const hostile = await api('POST', `/store/carts/${cartId}`, {
      body: {
        billing_address: {
          first_name: 'A',
          last_name: 'B',
          address_1: '1 Test Street',
          city: 'Austin',
          country_code: '(a+)+',
          province: `${'a'.repeat(40)}!`,
        },
      },
    });
    expect(hostile.status).toBeLessThan(500);
    const refused = await createSession(collectionId, HOSTED, {});
    expect(refused.status).toBe(400);
    expect(await sessionRowsOf(collectionId)).toEqual([]);
    expect(await chargesMentioning(email)).toEqual([]);
  });
});

describe('property: whatever the storefront sends as session data', () => {
  const cardNumber = fc.constantFrom('4242424242424242', '4242 4242 4242 4242', '4000-0000-0000-9995');
  const junk = fc.oneof(
    cardNumber,
    fc.record({ cardNo: cardNumber, cvv: fc.constant('123') }),
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constant('9'.repeat(5000)),
    fc.constant('x'.repeat(100_000)),
  );
  const sessionData = fc.oneof(
    fc.dictionary(fc.string({ maxLength: 12 }), fc.oneof(junk, fc.object({ maxDepth: 3 })), { maxKeys: 5 }),
    fc.record(
      {
        customerPaymentMethodId: junk,
        localMethod: junk,
        outcome: fc.constant({ status: 'succeeded' }),
        buyer: fc.object({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    ),
    junk,
    fc.array(junk, { maxLength: 3 }),
  );

  it('never a 5xx, never a stored card number, never a paid order without a gateway success', async () => {
    const email = uniqueEmail('fuzz');
    const { cartId, collectionId } = await readyCart({ email });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(CARD, HOSTED, LOCAL), sessionData, async (provider, data) => {
        const response = await createSession(collectionId, provider, data);
        expect(response.status).toBeLessThan(500);
        for (const row of await sessionRowsOf(collectionId))
          expect(row.data).not.toMatch(/"outcome":\{"status":"succeeded"/);
      }),
      { numRuns: 40 },
    );
    expect((await complete(cartId)).body.type).not.toBe('order');
    expect(await ordersOf(email)).toEqual([]);
    for (const row of await sessionRowsOf(collectionId)) {
      expect(row.data).not.toMatch(/"(cardNo|cvv|cvc|securityCode|pan)"/i);
      expect(row.data).not.toMatch(/4242[ -]?4242[ -]?4242[ -]?4242|4000[ -]?0000[ -]?0000[ -]?9995/);
    }
  });
});

describe('attack: refunds and reconciliation', () => {
  /** A paid order with one refund the gateway keeps pending: the notice that settles it is awaited. */
  async function pendingRefund() {
    const paid = await paidOrder();
    await sandboxControl('refunds/next', { outcome: 'pending' });
    try {
      const refund = await adminRefund(paid.paymentId, 5);
      const [gateway] = await sandboxRefunds(paid.tradeNo);
      return { paid, refundId: refund.refundId!, batchNo: gateway!.batchNo };
    } finally {
      await sandboxControl('refunds/next', undefined, 'DELETE');
    }
  }

  function refundNotice(
    type: string,
    fields: { orderNo: string; tradeNo: string; merTrackNo: string; batchNo: string; amount: string },
  ): string {
    return phpJsonEncode({
      type,
      data: {
        ...fields,
        orderAmount: '60.00',
        orderCurrency: 'USD',
        currency: 'USD',
        reason: 'forged',
        noticeDate: '2026-01-01 00:00:00',
      },
    });
  }

  it("a refund notification signed with another account's key never settles a refund of the first", async () => {
    const { paid, refundId, batchNo } = await pendingRefund();
    const body = refundNotice('refund.fail', {
      orderNo: paid.orderNo,
      tradeNo: paid.tradeNo,
      merTrackNo: refundId,
      batchNo,
      amount: '5.00',
    });
    const answer = await api('POST', '/hooks/gatewaykit/callback', {
      rawBody: body,
      headers: signedHeaders(body, { gatewayNo: SECOND_GATEWAY_NO, signKey: SECOND_SIGN_KEY }),
    });
    // Verified by the second account, which has no such payment: acknowledged, nothing changes.
    expect(answer).toMatchObject({ status: 200, body: 'success' });
    const payment = await adminPayment(paid.paymentId);
    expect(payment.data.refunds).toEqual([
      expect.objectContaining({ merTrackNo: refundId, status: 'pending' }),
    ]);
    // And a bad signature is not even read.
    const forged = await api('POST', '/hooks/gatewaykit/callback', {
      rawBody: body,
      headers: signedHeaders(body, { signKey: 'not-the-merchant-key' }),
    });
    expect(forged.status).toBe(401);
    expect((await adminPayment(paid.paymentId)).data.refunds[0].status).toBe('pending');
  });

  it('a refund reported failed, then succeeded: the first result stays, and the merchant, told to refund again, is told it went through after all (found by review)', async () => {
    const { paid, refundId, batchNo } = await pendingRefund();
    const fields = {
      orderNo: paid.orderNo,
      tradeNo: paid.tradeNo,
      merTrackNo: refundId,
      batchNo,
      amount: '5.00',
    };
    for (const type of ['refund.fail', 'refund.success']) {
      const body = refundNotice(type, fields);
      const answer = await api('POST', '/hooks/gatewaykit/callback', {
        rawBody: body,
        headers: signedHeaders(body),
      });
      expect(answer).toMatchObject({ status: 200, body: 'success' });
    }
    expect((await adminPayment(paid.paymentId)).data.refunds).toEqual([
      expect.objectContaining({ merTrackNo: refundId, status: 'failed' }),
    ]);
    const feed = await adminFeed();
    expect(feed).toContain(`Refund ${refundId} (batchNo ${batchNo}) of 5.00 USD`);
    expect(feed).toContain('was reported failed, and now succeeded at the gateway');
  });

  it('a refund recorded as made (its answer said success), then reported failed: the first result stays, and the merchant is told the customer did not get it (found by review)', async () => {
    const paid = await paidOrder();
    const refund = await adminRefund(paid.paymentId, 5);
    const [gateway] = await sandboxRefunds(paid.tradeNo);
    expect((await adminPayment(paid.paymentId)).data.refunds).toEqual([
      expect.objectContaining({ merTrackNo: refund.refundId, status: 'succeeded' }),
    ]);
    const body = refundNotice('refund.fail', {
      orderNo: paid.orderNo,
      tradeNo: paid.tradeNo,
      merTrackNo: refund.refundId!,
      batchNo: gateway!.batchNo,
      amount: '5.00',
    });
    const answer = await api('POST', '/hooks/gatewaykit/callback', {
      rawBody: body,
      headers: signedHeaders(body),
    });
    expect(answer).toMatchObject({ status: 200, body: 'success' });
    expect((await adminPayment(paid.paymentId)).data.refunds).toEqual([
      expect.objectContaining({ merTrackNo: refund.refundId, status: 'succeeded' }),
    ]);
    const feed = await adminFeed();
    expect(feed).toContain(`Refund ${refund.refundId} (batchNo ${gateway!.batchNo}) of 5.00 USD`);
    expect(feed).toContain('(it had been recorded as made)');
  });

  it('a refund.success for a refund Medusa never made changes no refund or payment status; it is only kept as money returned at the gateway', async () => {
    const paid = await paidOrder();
    const before = await adminPayment(paid.paymentId);
    const body = refundNotice('refund.success', {
      orderNo: paid.orderNo,
      tradeNo: paid.tradeNo,
      merTrackNo: 'ref_01FORGEDREFUND0000000000',
      batchNo: 'R0000000000000000000001',
      amount: '60.00',
    });
    const answer = await api('POST', '/hooks/gatewaykit/callback', {
      rawBody: body,
      headers: signedHeaders(body),
    });
    expect(answer).toMatchObject({ status: 200, body: 'success' });
    const after = await adminPayment(paid.paymentId);
    // Kept so that a cart still open would never become an order for this payment (its order exists).
    expect(after.data).toEqual({ ...before.data, refundedAtGateway: ['R0000000000000000000001'] });
    expect(after.refunds ?? []).toEqual([]);
    expect((await adminOrder(paid.orderId)).payment_status).toBe('captured');
  });

  it("attack: the admin routes take JSON only: a cross-site form's post (urlencoded, text, multipart) with the admin's credentials runs nothing", async () => {
    const token = await adminTokenFor();
    for (const type of [
      'application/x-www-form-urlencoded',
      'text/plain',
      'multipart/form-data; boundary=x',
    ]) {
      for (const path of [
        '/admin/gatewaykit/reconcile',
        '/admin/gatewaykit/attempts/close',
        '/admin/gatewaykit/refunds/close',
      ]) {
        const answer = await api('POST', path, {
          token,
          rawBody: 'orderNo=payses_01FORM&note=closed',
          headers: { 'content-type': type },
        });
        expect(answer.status, `${path} ${type}`).toBe(400);
        expect(String((answer.body as Json).message)).toContain('content-type: must be application/json');
      }
    }
    // The same admin, in JSON, is served.
    expect((await api('POST', '/admin/gatewaykit/reconcile', { token, body: {} })).status).toBe(200);
  });

  it('a storefront cannot run the admin reconciliation, nor close a charge or a refund', async () => {
    const { token } = await registerCustomer();
    for (const path of [
      '/admin/gatewaykit/reconcile',
      '/admin/gatewaykit/attempts/close',
      '/admin/gatewaykit/refunds/close',
    ]) {
      const body = { merTrackNo: 'ref_01ANY', made: false, note: 'not made' };
      expect((await api('POST', path, { body })).status, path).toBe(401);
      expect((await api('POST', path, { token, body })).status, path).toBe(401);
    }
  });
});

describe('attack: a made-up payment collection', () => {
  it('a payment session for a collection id that does not exist is a 404 naming it; nothing stored or charged', async () => {
    const made = 'pay_col_01MADEUP0000000000000000';
    for (const provider of [CARD, HOSTED, LOCAL]) {
      const response = await createSession(made, provider, {});
      expect(response.status).toBe(404);
      expect(response.body.message).toBe('No such payment collection');
    }
    expect(await sessionRowsOf(made)).toEqual([]);
    expect(await chargesMentioning(made)).toEqual([]);
  });
});

describe('attack: a made-up cart', () => {
  const madeUp = ['cart_01MADEUP00000000000000000', "cart_' OR '1'='1", `cart_${'x'.repeat(4000)}`];

  it('completing it, changing it or adding a line to it is a 4xx, never a 5xx; no order, nothing charged', async () => {
    for (const id of madeUp) {
      const path = `/store/carts/${encodeURIComponent(id)}`;
      const answers = [
        await api('POST', `${path}/complete`, { body: {} }),
        await api('POST', path, { body: { email: 'someone@example.com' } }),
        await api('POST', `${path}/line-items`, { body: { variant_id: 'variant_madeup', quantity: 1 } }),
      ];
      for (const answer of answers) {
        expect(answer.status, `${answer.status} for ${id.slice(0, 40)}`).toBeGreaterThanOrEqual(400);
        expect(answer.status).toBeLessThan(500);
      }
      expect(await sql(`SELECT order_id FROM order_cart WHERE cart_id = $1`, [id])).toEqual([]);
      expect(await chargesMentioning(id)).toEqual([]);
    }
  });
});
