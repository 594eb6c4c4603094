/**
 * An order is paid only through its own channel, against the real Vendure server and the sandbox.
 * Vendure puts every order in the default channel as well as its own, and a session's active order
 * follows it to requests of the default channel: without this rule a yen order of the jp-token channel
 * would be charged through the default channel's method and merchant account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JP_CHANNEL_TOKEN } from '../src/setup-store';
import { paymentRequests, rawGraphql } from './support/attacker';
import { adminOrder, CARDS, cardInput, prepareOrder, startPayment } from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';

const CARD_ELEMENT = `query ($code: String!) { gatewaykitCardElement(paymentMethodCode: $code) { sessionToken } }`;

describe('an order is paid only through its own channel', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('attack: a jp-token order sent to the default channel (no vendure-token) is refused before anything is stored or sent, by card, hosted page or card element', async () => {
    const jpShop = shopClient(stack, JP_CHANNEL_TOKEN);
    const order = await prepareOrder(jpShop);
    expect(order.currencyCode).toBe('JPY');
    const inDefault = jpShop.withChannel(undefined);
    const { activeOrder } = await inDefault.query<{ activeOrder: { code: string } | null }>(
      `{ activeOrder { code } }`,
    );
    // The premise: Vendure answers the order as the default channel's active order too.
    expect(activeOrder?.code).toBe(order.code);

    for (const input of [
      { paymentMethodCode: 'gatewaykit-card', card: cardInput(CARDS.success) },
      { paymentMethodCode: 'gatewaykit-hosted' },
    ]) {
      expect(await startPayment(inDefault, input)).toMatchObject({
        __typename: 'GatewaykitPaymentError',
        errorCode: 'ORDER_OF_ANOTHER_CHANNEL',
        message: expect.stringContaining('belongs to another channel'),
      });
    }
    const element = await rawGraphql(inDefault, CARD_ELEMENT, { code: 'gatewaykit-card' });
    expect(element.body.data?.gatewaykitCardElement ?? null).toBeNull();
    expect(element.body.errors?.[0]?.message).toContain('belongs to another channel');

    expect(paymentRequests(stack.sandbox, order.code)).toHaveLength(0);
    const untouched = await adminOrder(stack.admin.withChannel(JP_CHANNEL_TOKEN), order.id);
    expect(untouched.state).toBe('AddingItems');
    expect(untouched.payments).toEqual([]);

    // Through its own channel the same order pays, in yen, once.
    expect(
      await startPayment(jpShop, { paymentMethodCode: 'jp-gatewaykit-card', card: cardInput(CARDS.success) }),
    ).toMatchObject({ __typename: 'GatewaykitPaymentCompleted' });
    expect(stack.sandbox.order(`${order.code}-1`)).toMatchObject({
      orderStatus: 'success',
      orderCurrency: 'JPY',
    });
    expect(paymentRequests(stack.sandbox, order.code)).toHaveLength(1);
  });

  it('an order of the default channel still pays there, and its card element opens', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const element = await rawGraphql(shop, CARD_ELEMENT, { code: 'gatewaykit-card' });
    expect(element.body.errors).toBeUndefined();
    expect(
      await startPayment(shop, { paymentMethodCode: 'gatewaykit-card', card: cardInput(CARDS.success) }),
    ).toMatchObject({ __typename: 'GatewaykitPaymentCompleted' });
    expect((await adminOrder(stack.admin, order.id)).state).toBe('PaymentSettled');
  });
});
