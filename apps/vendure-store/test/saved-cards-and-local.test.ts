import { GatewayClient } from '@gatewaykit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANTS } from '../src/gateways';
import type { GraphqlClient } from '../src/graphql-client';
import { uniqueEmail } from './support/email';
import {
  adminOrder,
  CARDS,
  cardInput,
  completeRedirect,
  prepareOrder,
  registerAndLogin,
  startPayment,
} from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';

interface Card {
  id: string;
  last4: string | null;
  maskCardNo: string;
}

const listCards = async (shop: GraphqlClient) =>
  (
    await shop.query<{ gatewaykitSavedCards: Card[] }>(
      `{ gatewaykitSavedCards(paymentMethodCode: "gatewaykit-card") { id last4 maskCardNo } }`,
    )
  ).gatewaykitSavedCards;

const saveCard = async (shop: GraphqlClient, cardNo: string) =>
  (
    await shop.query<{ gatewaykitSaveCard: Card }>(
      `mutation ($input: GatewaykitSaveCardInput!) { gatewaykitSaveCard(input: $input) { id last4 maskCardNo } }`,
      {
        input: {
          paymentMethodCode: 'gatewaykit-card',
          card: cardInput(cardNo),
          line1: '1 Analytical Way',
          city: 'London',
          countryCode: 'GB',
          postalCode: 'N1 1AA',
        },
      },
    )
  ).gatewaykitSaveCard;

const removeCard = async (shop: GraphqlClient, id: string) =>
  (
    await shop.query<{ gatewaykitRemoveSavedCard: boolean }>(
      `mutation ($id: String!) { gatewaykitRemoveSavedCard(paymentMethodCode: "gatewaykit-card", id: $id) }`,
      { id },
    )
  ).gatewaykitRemoveSavedCard;

describe('saved cards, local methods and method settings', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('a logged-in customer saves, lists, pays with and removes a card; another customer cannot touch it', async () => {
    const alice = shopClient(stack);
    await registerAndLogin(alice, uniqueEmail('alice'));
    expect(await listCards(alice)).toEqual([]);
    const saved = await saveCard(alice, CARDS.success);
    expect(saved.last4).toBe('4242');
    const listed = await listCards(alice);
    expect(listed.map((c) => c.id)).toEqual([saved.id]);

    const order = await prepareOrder(alice, { loggedIn: true });
    const paid = await startPayment(alice, { paymentMethodCode: 'gatewaykit-card', savedCardId: saved.id });
    expect(paid.__typename).toBe('GatewaykitPaymentCompleted');
    // The answer's order is read after the payment, with the relations the query selects.
    if (paid.__typename !== 'GatewaykitPaymentCompleted') throw new Error('not paid');
    expect(paid.order).toMatchObject({
      id: order.id,
      state: 'PaymentSettled',
      payments: [{ state: 'Settled' }],
    });
    expect(paid.order.lines.map((line) => line.productVariant.name.length > 0)).toEqual([true]);
    const settled = await adminOrder(stack.admin, order.id);
    expect(settled.state).toBe('PaymentSettled');
    expect(settled.payments[0]?.state).toBe('Settled');
    expect(stack.sandbox.order(`${order.code}-1`)?.customerPaymentMethodId).toBe(saved.id);

    const mallory = shopClient(stack);
    await registerAndLogin(mallory, uniqueEmail('mallory'));
    expect(await listCards(mallory)).toEqual([]);
    const malloryOrder = await prepareOrder(mallory, { loggedIn: true });
    const stolen = await startPayment(mallory, {
      paymentMethodCode: 'gatewaykit-card',
      savedCardId: saved.id,
    });
    expect(stolen).toMatchObject({ __typename: 'GatewaykitPaymentError', errorCode: 'CARD_NOT_FOUND' });
    // Named as a card-element card: the gateway's record names no owner (as documented), and a card
    // saved from card data is retired for checkouts when it is made, so it is no fresh element card.
    for (const input of [
      { elementPaymentMethodId: saved.id },
      { elementPaymentMethodId: saved.id, saveCard: true },
    ]) {
      expect(await startPayment(mallory, { paymentMethodCode: 'gatewaykit-card', ...input })).toMatchObject({
        __typename: 'GatewaykitPaymentError',
        errorCode: 'CARD_NOT_YOURS',
      });
    }
    const stranger = shopClient(stack);
    const strangerOrder = await prepareOrder(stranger);
    expect(
      await startPayment(stranger, {
        paymentMethodCode: 'gatewaykit-card',
        elementPaymentMethodId: saved.id,
      }),
    ).toMatchObject({ __typename: 'GatewaykitPaymentError', errorCode: 'CARD_NOT_YOURS' });
    expect(stack.sandbox.order(`${strangerOrder.code}-1`)).toBeUndefined();
    expect(stack.sandbox.order(`${malloryOrder.code}-1`)).toBeUndefined();
    expect(await removeCard(mallory, saved.id)).toBe(false);
    expect((await listCards(alice)).map((c) => c.id)).toEqual([saved.id]);

    expect(await removeCard(alice, saved.id)).toBe(true);
    expect(await listCards(alice)).toEqual([]);

    // Detached, the card is attached to nobody, as a fresh card-element card is: naming its id as
    // one (ids are not secret) charges nothing, for a guest or another customer, saved or not.
    expect(
      stack.sandbox.state().paymentMethods.find((m) => m.customerPaymentMethodId === saved.id)?.customerId,
    ).toBeFalsy();
    const guest = shopClient(stack);
    const guestOrder = await prepareOrder(guest);
    expect(
      await startPayment(guest, { paymentMethodCode: 'gatewaykit-card', elementPaymentMethodId: saved.id }),
    ).toMatchObject({ __typename: 'GatewaykitPaymentError', errorCode: 'CARD_NOT_YOURS' });
    expect(
      await startPayment(mallory, {
        paymentMethodCode: 'gatewaykit-card',
        elementPaymentMethodId: saved.id,
        saveCard: true,
      }),
    ).toMatchObject({ __typename: 'GatewaykitPaymentError', errorCode: 'CARD_NOT_YOURS' });
    expect(stack.sandbox.order(`${guestOrder.code}-1`)).toBeUndefined();
    expect(stack.sandbox.order(`${malloryOrder.code}-1`)).toBeUndefined();
    expect(await listCards(mallory)).toEqual([]);
  });

  it('attack: a card saved outside the store (the portal, an older release) is retired once its owner lists their cards: nobody else takes it for an element card', async () => {
    const owner = shopClient(stack);
    const email = uniqueEmail('owner');
    await registerAndLogin(owner, email);
    await saveCard(owner, CARDS.success);
    const gatewayCustomer = stack.sandbox.state().customers.find((c) => c.email === email)!.customerId;
    // Attached to the owner at the gateway, with no word to the store.
    const portal = new GatewayClient({ ...DEMO_MERCHANTS.main, baseUrl: stack.sandbox.url });
    const outside = await portal.paymentMethods.create({
      customerId: gatewayCustomer,
      card: { cardNo: CARDS.success, cardExpireMonth: '12', cardExpireYear: '2030', cardSecurityCode: '123' },
      billingDetail: {
        email,
        firstName: 'Grace',
        lastName: 'Hopper',
        phone: '5550100',
        address: { line1: '1 Analytical Way', city: 'London', country: 'GB', postalCode: 'N1 1AA' },
      },
    });
    await portal.close();
    expect((await listCards(owner)).map((c) => c.id)).toContain(outside.customerPaymentMethodId);

    const thief = shopClient(stack);
    const thiefOrder = await prepareOrder(thief);
    expect(
      await startPayment(thief, {
        paymentMethodCode: 'gatewaykit-card',
        elementPaymentMethodId: outside.customerPaymentMethodId,
      }),
    ).toMatchObject({ __typename: 'GatewaykitPaymentError', errorCode: 'CARD_NOT_YOURS' });
    expect(stack.sandbox.order(`${thiefOrder.code}-1`)).toBeUndefined();
    // Still the owner's to pay with.
    await prepareOrder(owner, { loggedIn: true });
    expect(
      await startPayment(owner, {
        paymentMethodCode: 'gatewaykit-card',
        savedCardId: outside.customerPaymentMethodId,
      }),
    ).toMatchObject({ __typename: 'GatewaykitPaymentCompleted' });
  });

  it("attack: a customer's first two saved cards at once (two tabs): one gateway customer id is kept and both cards are listed", async () => {
    const bob = shopClient(stack);
    await registerAndLogin(bob, uniqueEmail('bob'));
    // Both requests find no gateway customer and create one while the other is still at the gateway.
    stack.sandbox.addFault({ route: 'createCustomer', kind: 'latency', ms: 400, times: 2 });
    const saved = await Promise.all([saveCard(bob, CARDS.success), saveCard(bob, CARDS.pendingThenSuccess)]);
    expect(new Set(saved.map((card) => card.last4)).size).toBe(2);
    expect((await listCards(bob)).map((card) => card.id).sort()).toEqual(saved.map((card) => card.id).sort());
  });

  it('guests cannot list saved cards', async () => {
    const guest = shopClient(stack);
    await expect(listCards(guest)).rejects.toThrow();
  });

  it('local method (Alipay): success pays the order', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const started = await startPayment(shop, { paymentMethodCode: 'gatewaykit-local' });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    expect(stack.sandbox.order(started.orderNo)?.paymentMethod?.toLowerCase()).toBe('alipay');
    const back = await completeRedirect(started.url, 'success');
    expect(back.storefrontLocation).toContain('payment=succeeded');
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments[0]?.metadata.mode).toBe('local:Alipay');
  });

  it('local method abandoned: the order stays payable and can be paid with another method', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const started = await startPayment(shop, { paymentMethodCode: 'gatewaykit-local' });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    await completeRedirect(started.url, 'abandon');
    const open = await adminOrder(stack.admin, order.id);
    expect(open.state).toBe('ArrangingPayment');
    const { activeOrder } = await shop.query<{ activeOrder: { code: string } | null }>(
      `{ activeOrder { code } }`,
    );
    expect(activeOrder?.code).toBe(order.code);
    const retry = await startPayment(shop, {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.success),
    });
    expect(retry.__typename).toBe('GatewaykitPaymentCompleted');
  });

  it('refuses to save a payment method with unusable settings, with a clear message', async () => {
    const save = stack.admin.query(
      `mutation ($input: CreatePaymentMethodInput!) { createPaymentMethod(input: $input) { id } }`,
      {
        input: {
          code: 'broken-gateway',
          enabled: true,
          handler: {
            code: 'gatewaykit',
            arguments: [
              { name: 'gatewayNo', value: 'ab-c' },
              { name: 'signKey', value: 'x' },
              { name: 'environment', value: 'test' },
              { name: 'baseUrl', value: '' },
              { name: 'mode', value: 'local' },
              { name: 'localMethod', value: 'NoSuchMethod' },
            ],
          },
          translations: [{ languageCode: 'en', name: 'Broken', description: '' }],
        },
      },
    );
    await expect(save).rejects.toThrow(
      /gatewayNo must be the merchant gateway number: 1 to 16 letters or digits.*signKey.*localMethod/,
    );
  });

  it('refuses to update a payment method to unusable settings', async () => {
    const { paymentMethods } = await stack.admin.query<{
      paymentMethods: { items: { id: string; code: string }[] };
    }>(`{ paymentMethods(options: { take: 100 }) { items { id code } } }`);
    const hosted = paymentMethods.items.find((p) => p.code === 'gatewaykit-hosted');
    const update = stack.admin.query(
      `mutation ($input: UpdatePaymentMethodInput!) { updatePaymentMethod(input: $input) { id } }`,
      {
        input: {
          id: hosted?.id,
          handler: {
            code: 'gatewaykit',
            arguments: [
              { name: 'gatewayNo', value: '12345001' },
              { name: 'signKey', value: 'demo-sign-key-main-0001' },
              { name: 'environment', value: 'custom' },
              { name: 'baseUrl', value: 'not a url' },
              { name: 'mode', value: 'hosted' },
              { name: 'localMethod', value: '' },
            ],
          },
        },
      },
    );
    await expect(update).rejects.toThrow(/baseUrl must be an http\(s\) URL/);
    // The stored method still works.
    const shop = shopClient(stack);
    await prepareOrder(shop);
    expect((await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' })).__typename).toBe(
      'GatewaykitPaymentRedirect',
    );
  });

  it('the Shop API never exposes the sign key', async () => {
    const shop = shopClient(stack);
    await prepareOrder(shop);
    const res = await fetch(stack.shopUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${shop.authToken}` },
      body: JSON.stringify({ query: '{ eligiblePaymentMethods { code name description customFields } }' }),
    });
    const text = await res.text();
    expect(text).toContain('gatewaykit-hosted');
    expect(text).not.toContain('demo-sign-key');
  });
});
