import { createElementPaymentMethod } from '@gatewaykit/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphqlClient } from '../src/graphql-client';
import { JP_CHANNEL_TOKEN } from '../src/setup-store';
import { isServerFailure, paymentRequests, rawGraphql } from './support/attacker';
import { uniqueEmail } from './support/email';
import {
  adminOrder,
  CARDS,
  cardInput,
  completeRedirect,
  prepareOrder,
  registerAndLogin,
  type StartResult,
} from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';

/**
 * The card element (docs/card-element.md) as most stores run it: without the PCI opt-in, so cards only
 * reach the gateway through the element. The browser's part (the iframe's call) is the sandbox's
 * createElementPaymentMethod, exactly the HTTP call the iframe makes.
 */

interface CardElement {
  sessionToken: string;
  scriptUrl: string;
  expiresAt: string;
}

const ELEMENT_QUERY = `query ($code: String!) { gatewaykitCardElement(paymentMethodCode: $code) { sessionToken scriptUrl expiresAt } }`;

const START_MUTATION = `mutation ($input: GatewaykitStartPaymentInput!) { gatewaykitStartPayment(input: $input) {
  __typename
  ... on GatewaykitPaymentRedirect { url orderNo }
  ... on GatewaykitPaymentCompleted { order { id code state } }
  ... on GatewaykitPaymentPending { orderNo message }
  ... on GatewaykitPaymentError { errorCode message }
} }`;

async function cardElement(shop: GraphqlClient, code = 'gatewaykit-card'): Promise<CardElement> {
  return (await shop.query<{ gatewaykitCardElement: CardElement }>(ELEMENT_QUERY, { code }))
    .gatewaykitCardElement;
}

async function pay(
  shop: GraphqlClient,
  input: {
    elementPaymentMethodId?: string;
    saveCard?: boolean;
    savedCardId?: string;
    paymentMethodCode?: string;
  },
): Promise<StartResult> {
  const res = await shop.query<{ gatewaykitStartPayment: StartResult }>(START_MUTATION, {
    input: { paymentMethodCode: 'gatewaykit-card', ...input },
  });
  return res.gatewaykitStartPayment;
}

interface Card {
  id: string;
  last4: string | null;
}

const listCards = async (shop: GraphqlClient) =>
  (
    await shop.query<{ gatewaykitSavedCards: Card[] }>(
      `{ gatewaykitSavedCards(paymentMethodCode: "gatewaykit-card") { id last4 } }`,
    )
  ).gatewaykitSavedCards;

describe('card element (default card path, no raw card data) through the real server and sandbox', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({}, { GATEWAYKIT_ALLOW_RAW_CARD_DATA: '0' });
  });
  afterAll(async () => {
    await stack?.close();
  });

  /** What the element does in the browser: the shopper types the card, the iframe creates the method. */
  const elementMethod = async (token: string, cardNo: string) =>
    (await createElementPaymentMethod(stack.sandbox.url, token, { card: cardInput(cardNo) as never }))
      .customerPaymentMethodId;

  const operations = (name: string) => stack.sandbox.requests().filter((r) => r.operation === name).length;

  it('a guest pays with a card from the element: token from the query, the order settled', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const before = Date.now();
    const element = await cardElement(shop);
    expect(element.sessionToken).toMatch(/^st_/);
    expect(element.scriptUrl).toBe(
      `${new URL(stack.sandbox.url).origin}/static/v3/js/AsiabillPayment.min.js`,
    );
    const expires = new Date(element.expiresAt).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + 30 * 60_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 30 * 60_000 + 1000);
    // The page can load the SDK from there.
    const sdk = await fetch(element.scriptUrl);
    expect(sdk.status).toBe(200);
    expect(await sdk.text()).toContain('AsiabillPay');

    const pm = await elementMethod(element.sessionToken, CARDS.success);
    const attaches = operations('attachPaymentMethod');
    const paid = await pay(shop, { elementPaymentMethodId: pm });
    expect(operations('attachPaymentMethod')).toBe(attaches);
    expect(paid.__typename).toBe('GatewaykitPaymentCompleted');
    const settled = await adminOrder(stack.admin, order.id);
    expect(settled.state).toBe('PaymentSettled');
    expect(settled.payments.map((p) => p.state)).toEqual(['Settled']);
    expect(settled.payments[0]?.metadata.maskCardNo).toMatch(/4242$/);
    const charge = stack.sandbox.order(`${order.code}-1`);
    expect(charge?.customerPaymentMethodId).toBe(pm);
    // A guest's charge binds the card to nobody.
    expect(charge?.customerId ?? '').toBe('');
  });

  it('3-D Secure with an element card: redirect, then the verified return settles the order', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const pm = await elementMethod((await cardElement(shop)).sessionToken, CARDS.challenge);
    const started = await pay(shop, { elementPaymentMethodId: pm });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    expect((await adminOrder(stack.admin, order.id)).state).toBe('ArrangingPayment');
    const back = await completeRedirect(started.url, 'success', CARDS.challenge);
    expect(back.storefrontLocation).toContain('payment=succeeded');
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.filter((p) => p.state === 'Settled')).toHaveLength(1);
  });

  it('a declined element card, then another element card pays the same order', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const { sessionToken } = await cardElement(shop);
    const declined = await pay(shop, {
      elementPaymentMethodId: await elementMethod(sessionToken, CARDS.decline),
    });
    expect(declined).toMatchObject({ __typename: 'GatewaykitPaymentError', errorCode: 'PAYMENT_DECLINED' });
    const open = await adminOrder(stack.admin, order.id);
    expect(open.state).toBe('ArrangingPayment');
    expect(open.payments.map((p) => p.state)).toEqual(['Declined']);

    const retried = await pay(shop, {
      elementPaymentMethodId: await elementMethod(sessionToken, CARDS.success),
    });
    expect(retried.__typename).toBe('GatewaykitPaymentCompleted');
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.map((p) => p.state).sort()).toEqual(['Declined', 'Settled']);
  });

  it('a logged-in customer saves the element card while paying; it is listed and pays the next order', async () => {
    const shop = shopClient(stack);
    await registerAndLogin(shop, uniqueEmail('saver'));
    expect(await listCards(shop)).toEqual([]);
    const first = await prepareOrder(shop, { loggedIn: true });
    const pm = await elementMethod((await cardElement(shop)).sessionToken, CARDS.success);
    const attaches = operations('attachPaymentMethod');
    const paid = await pay(shop, { elementPaymentMethodId: pm, saveCard: true });
    expect(paid.__typename).toBe('GatewaykitPaymentCompleted');
    expect((await adminOrder(stack.admin, first.id)).state).toBe('PaymentSettled');
    // Paid without a redirect: the plugin attached the card too (keepElementCard).
    expect(operations('attachPaymentMethod')).toBe(attaches + 1);
    // The charge carried the customer's gateway customer (which binds the card), then it was attached.
    const charge = stack.sandbox.order(`${first.code}-1`);
    expect(charge?.customerId).toMatch(/^cus_/);
    const cards = await listCards(shop);
    expect(cards).toEqual([{ id: pm, last4: '4242' }]);

    const second = await prepareOrder(shop, { loggedIn: true });
    const again = await pay(shop, { savedCardId: pm });
    expect(again.__typename).toBe('GatewaykitPaymentCompleted');
    expect((await adminOrder(stack.admin, second.id)).state).toBe('PaymentSettled');
    expect(stack.sandbox.order(`${second.code}-1`)?.customerPaymentMethodId).toBe(pm);

    // The storefront may also hand the saved card back as the element id: it is the customer's own.
    const third = await prepareOrder(shop, { loggedIn: true });
    expect((await pay(shop, { elementPaymentMethodId: pm })).__typename).toBe('GatewaykitPaymentCompleted');
    expect((await adminOrder(stack.admin, third.id)).state).toBe('PaymentSettled');
  });

  it('a card saved through a 3-D Secure charge is bound by the charge and listed after the return', async () => {
    const shop = shopClient(stack);
    await registerAndLogin(shop, uniqueEmail('saver3ds'));
    const order = await prepareOrder(shop, { loggedIn: true });
    const pm = await elementMethod((await cardElement(shop)).sessionToken, CARDS.challenge);
    const started = await pay(shop, { elementPaymentMethodId: pm, saveCard: true });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    expect((await completeRedirect(started.url, 'success', CARDS.challenge)).storefrontLocation).toContain(
      'payment=succeeded',
    );
    expect((await adminOrder(stack.admin, order.id)).state).toBe('PaymentSettled');
    expect((await listCards(shop)).map((c) => c.id)).toEqual([pm]);
  });

  it('a card element token from another merchant (the yen channel) makes a method this store cannot charge', async () => {
    const jpShop = shopClient(stack, JP_CHANNEL_TOKEN);
    await prepareOrder(jpShop);
    const jpElement = await cardElement(jpShop, 'jp-gatewaykit-card');
    const foreign = await elementMethod(jpElement.sessionToken, CARDS.success);

    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const refused = await pay(shop, { elementPaymentMethodId: foreign });
    expect(refused).toMatchObject({
      __typename: 'GatewaykitPaymentError',
      errorCode: 'CARD_NOT_FOUND',
      message: expect.stringContaining('elementPaymentMethodId'),
    });
    expect(paymentRequests(stack.sandbox, order.code)).toEqual([]);
    expect((await adminOrder(stack.admin, order.id)).payments).toEqual([]);
  });

  it("another customer's saved card is never charged, whoever sends its id", async () => {
    const alice = shopClient(stack);
    await registerAndLogin(alice, uniqueEmail('alice'));
    await prepareOrder(alice, { loggedIn: true });
    const alicePm = await elementMethod((await cardElement(alice)).sessionToken, CARDS.success);
    expect((await pay(alice, { elementPaymentMethodId: alicePm, saveCard: true })).__typename).toBe(
      'GatewaykitPaymentCompleted',
    );

    const mallory = shopClient(stack);
    await registerAndLogin(mallory, uniqueEmail('mallory'));
    const malloryOrder = await prepareOrder(mallory, { loggedIn: true });
    for (const input of [
      { elementPaymentMethodId: alicePm },
      { elementPaymentMethodId: alicePm, saveCard: true },
    ]) {
      expect(await pay(mallory, input)).toMatchObject({
        __typename: 'GatewaykitPaymentError',
        errorCode: 'CARD_NOT_YOURS',
      });
    }
    expect(await pay(mallory, { savedCardId: alicePm })).toMatchObject({ errorCode: 'CARD_NOT_FOUND' });
    expect(paymentRequests(stack.sandbox, malloryOrder.code)).toEqual([]);

    const guest = shopClient(stack);
    const guestOrder = await prepareOrder(guest);
    expect(await pay(guest, { elementPaymentMethodId: alicePm })).toMatchObject({
      errorCode: 'CARD_NOT_YOURS',
    });
    expect(paymentRequests(stack.sandbox, guestOrder.code)).toEqual([]);
    // Still Alice's alone.
    expect((await listCards(alice)).map((c) => c.id)).toEqual([alicePm]);
    expect(await listCards(mallory)).toEqual([]);
  });

  it('saveCard as a guest is refused before the gateway is asked, and nothing is charged', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const pm = await elementMethod((await cardElement(shop)).sessionToken, CARDS.success);
    const lookups = operations('retrievePaymentMethod');
    const customers = operations('createCustomer');
    const refused = await pay(shop, { elementPaymentMethodId: pm, saveCard: true });
    expect(refused).toMatchObject({
      __typename: 'GatewaykitPaymentError',
      errorCode: 'SAVE_NEEDS_LOGIN',
      message: expect.stringContaining('saveCard'),
    });
    expect(operations('retrievePaymentMethod')).toBe(lookups);
    expect(operations('createCustomer')).toBe(customers);
    expect(paymentRequests(stack.sandbox, order.code)).toEqual([]);
    // The same card without saveCard pays.
    expect((await pay(shop, { elementPaymentMethodId: pm })).__typename).toBe('GatewaykitPaymentCompleted');
  });

  it('the card element query needs an active order and an eligible gateway card method', async () => {
    const tokens = () => operations('createSessionToken');
    const before = tokens();
    const empty = shopClient(stack);
    const noOrder = await rawGraphql(empty, ELEMENT_QUERY, { code: 'gatewaykit-card' });
    expect(noOrder.body.errors?.[0]?.message).toMatch(/no active order/);
    expect(isServerFailure(noOrder)).toBe(false);

    const shop = shopClient(stack);
    await prepareOrder(shop);
    for (const [code, reason] of [
      ['gatewaykit-hosted', /hosted method: the card element is only for card methods/],
      ['gatewaykit-local', /local method: the card element is only for card methods/],
      ['no-such-method', /No gateway payment method "no-such-method"/],
    ] as const) {
      const res = await rawGraphql(shop, ELEMENT_QUERY, { code });
      expect(res.body.errors?.[0]?.message).toMatch(reason);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('USER_INPUT_ERROR');
      expect(isServerFailure(res)).toBe(false);
    }
    // The yen channel does not see the default channel's methods (its own merchant's only).
    const jpShop = shopClient(stack, JP_CHANNEL_TOKEN);
    await prepareOrder(jpShop);
    const otherChannel = await rawGraphql(jpShop, ELEMENT_QUERY, { code: 'gatewaykit-card' });
    expect(otherChannel.body.errors?.[0]?.message).toMatch(
      /No gateway payment method "gatewaykit-card" in this channel/,
    );
    const malformed = await rawGraphql(shop, ELEMENT_QUERY, { code: '<script>' });
    expect(malformed.body.errors?.[0]?.message).toMatch(/paymentMethodCode/);
    expect(tokens()).toBe(before);
  });

  /** A card method of the same merchant whose eligibility checker refuses any order over 1. */
  let tinyOrders: Promise<unknown> | undefined;
  const tinyOrdersMethod = () => {
    tinyOrders ??= (async () => {
      await stack.admin.query(
        `mutation ($input: CreatePaymentMethodInput!) { createPaymentMethod(input: $input) { id } }`,
        {
          input: {
            code: 'gatewaykit-card-tiny-orders',
            enabled: true,
            handler: {
              code: 'gatewaykit',
              arguments: [
                { name: 'gatewayNo', value: stack.sandbox.gatewayNo },
                { name: 'signKey', value: stack.sandbox.signKey },
                { name: 'environment', value: 'custom' },
                { name: 'baseUrl', value: stack.sandbox.url },
                { name: 'mode', value: 'card' },
                { name: 'localMethod', value: '' },
              ],
            },
            checker: { code: 'max-order-total', arguments: [{ name: 'maxTotal', value: '1' }] },
            translations: [{ languageCode: 'en', name: 'Tiny', description: '' }],
          },
        },
      );
    })();
    return tinyOrders;
  };

  it('a card method whose eligibility checker refuses the order gets no card element', async () => {
    await tinyOrdersMethod();
    const shop = shopClient(stack);
    await prepareOrder(shop);
    const res = await rawGraphql(shop, ELEMENT_QUERY, { code: 'gatewaykit-card-tiny-orders' });
    expect(res.body.errors?.[0]?.message).toMatch(/only for smaller orders/);
    expect(res.body.data).toBeNull();
  });

  it("attack: an element card whose start was refused (the method refuses the order) stays its order's: another shopper naming it is refused, its owner pays with it (found by review)", async () => {
    await tinyOrdersMethod();
    const victim = shopClient(stack);
    const victimOrder = await prepareOrder(victim);
    const pm = await elementMethod((await cardElement(victim)).sessionToken, CARDS.success);
    expect(
      await pay(victim, { elementPaymentMethodId: pm, paymentMethodCode: 'gatewaykit-card-tiny-orders' }),
    ).toMatchObject({ __typename: 'GatewaykitPaymentError', errorCode: 'INELIGIBLE_PAYMENT_METHOD' });

    // The id is time-based: whoever guesses it names it on their own order.
    const thief = shopClient(stack);
    const thiefOrder = await prepareOrder(thief);
    expect(await pay(thief, { elementPaymentMethodId: pm })).toMatchObject({
      __typename: 'GatewaykitPaymentError',
      errorCode: 'CARD_NOT_YOURS',
    });
    expect(paymentRequests(stack.sandbox, thiefOrder.code)).toEqual([]);
    expect((await adminOrder(stack.admin, thiefOrder.id)).payments).toEqual([]);

    // Its owner pays with it through an eligible method.
    expect((await pay(victim, { elementPaymentMethodId: pm })).__typename).toBe('GatewaykitPaymentCompleted');
    expect(paymentRequests(stack.sandbox, victimOrder.code)).toHaveLength(1);
  });

  it('unknown or malformed input fields are refused and nothing is charged', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const pm = await elementMethod((await cardElement(shop)).sessionToken, CARDS.success);
    // Unknown fields: refused by the schema's input type, naming the field.
    for (const extra of [{ customerId: 'cus_1' }, { gatewayCustomerId: 'cus_1' }, { amount: 1 }]) {
      const res = await rawGraphql(shop, START_MUTATION, {
        input: { paymentMethodCode: 'gatewaykit-card', elementPaymentMethodId: pm, ...extra },
      });
      expect(res.body.errors?.[0]?.message).toContain(Object.keys(extra)[0]);
      expect(isServerFailure(res)).toBe(false);
    }
    const extraArg = await rawGraphql(
      shop,
      `{ gatewaykitCardElement(paymentMethodCode: "gatewaykit-card", customerId: "cus_1") { sessionToken } }`,
      {},
    );
    expect(extraArg.body.errors?.[0]?.message).toContain('customerId');
    // Malformed values: refused by the allow-list, naming the field, before the gateway is asked.
    const lookups = operations('retrievePaymentMethod');
    for (const input of [
      { elementPaymentMethodId: 'pm_1" OR 1=1' },
      { elementPaymentMethodId: CARDS.success },
      { elementPaymentMethodId: pm, savedCardId: pm },
      { saveCard: true },
      { elementPaymentMethodId: pm, card: cardInput(CARDS.success) },
    ]) {
      const result = await pay(shop, input as never);
      expect(result).toMatchObject({ __typename: 'GatewaykitPaymentError', errorCode: 'INVALID_INPUT' });
    }
    // An element method sent to a hosted method.
    expect(
      await pay(shop, { paymentMethodCode: 'gatewaykit-hosted', elementPaymentMethodId: pm }),
    ).toMatchObject({
      errorCode: 'INVALID_INPUT',
    });
    // Raw card data without the PCI opt-in points to the element.
    const raw = await pay(shop, { card: cardInput(CARDS.success) } as never);
    expect(raw).toMatchObject({
      errorCode: 'RAW_CARD_NOT_ALLOWED',
      message: expect.stringContaining('card element'),
    });
    expect(paymentRequests(stack.sandbox, order.code)).toEqual([]);
    expect(operations('retrievePaymentMethod')).toBe(lookups);
  });

  it('gatewaykitSaveCard without the PCI opt-in points to the card element and sends nothing', async () => {
    const shop = shopClient(stack);
    await registerAndLogin(shop, uniqueEmail('raw'));
    const created = operations('createPaymentMethod');
    const res = await rawGraphql(
      shop,
      `mutation ($input: GatewaykitSaveCardInput!) { gatewaykitSaveCard(input: $input) { id } }`,
      {
        input: {
          paymentMethodCode: 'gatewaykit-card',
          card: cardInput(CARDS.success),
          line1: '1 Analytical Way',
          city: 'London',
          countryCode: 'GB',
        },
      },
    );
    expect(res.body.errors?.[0]?.message).toMatch(
      /does not accept card data directly.*gatewaykitCardElement.*elementPaymentMethodId and saveCard: true/,
    );
    expect(res.body.errors?.[0]?.extensions?.code).toBe('USER_INPUT_ERROR');
    expect(JSON.stringify(res.body)).not.toContain(CARDS.success);
    expect(operations('createPaymentMethod')).toBe(created);
  });

  it('an expired session token cannot create a payment method', async () => {
    const shop = shopClient(stack);
    await prepareOrder(shop);
    const { sessionToken } = await cardElement(shop);
    const offset = stack.sandbox.clock.offsetMs;
    // 31 minutes later on the gateway's clock (its signed-request window would refuse Vendure meanwhile).
    stack.sandbox.clock.advance(31 * 60_000);
    try {
      await expect(elementMethod(sessionToken, CARDS.success)).rejects.toThrow(/expired/);
    } finally {
      stack.sandbox.clock.setOffset(offset);
    }
    // Back in its 30 minutes it would still work; a fresh token from the query always does.
    const fresh = await cardElement(shop);
    expect(fresh.sessionToken).not.toBe(sessionToken);
    await expect(elementMethod(fresh.sessionToken, CARDS.success)).resolves.toMatch(/^pm_/);
  });

  it('no card number reached the server log', () => {
    for (const cardNo of Object.values(CARDS)) expect(stack.server.output()).not.toContain(cardNo);
  });
});
