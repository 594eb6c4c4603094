/**
 * Another payment method while a gateway charge is open, against the real Vendure server and the
 * sandbox: a charge whose outcome is not known yet may still take the shopper's money, so the order
 * must not be paid a second time through another handler meanwhile. The store's benchmark no-op handler
 * (`bench-noop`, GATEWAYKIT_BENCH=1) stands for any other payment method: it settles whatever it is given.
 */
import { ORDER_CHANGE_REFUSED } from '@gatewaykit/vendure-plugin';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GraphqlClient } from '../src/graphql-client';
import { rawGraphql } from './support/attacker';
import {
  adminOrder,
  CARDS,
  cardInput,
  completeRedirect,
  eventually,
  prepareOrder,
  startPayment,
} from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';

interface AddPaymentAnswer {
  __typename: string;
  state?: string;
  message?: string;
  eligibilityCheckerMessage?: string;
}

/** Pays with the no-op handler; `metadata` may make it slow (`waitMs`) or decline (`decline`). */
async function payWithOtherMethod(
  shop: GraphqlClient,
  metadata: Record<string, unknown> = {},
): Promise<AddPaymentAnswer> {
  const { addPaymentToOrder } = await shop.query<{ addPaymentToOrder: AddPaymentAnswer }>(
    `mutation ($metadata: JSON!) { addPaymentToOrder(input: { method: "bench-noop", metadata: $metadata }) {
       __typename ... on Order { state } ... on ErrorResult { message }
       ... on IneligiblePaymentMethodError { eligibilityCheckerMessage } } }`,
    { metadata },
  );
  return addPaymentToOrder;
}

/** The storefront's move to ArrangingPayment, which another method needs (the plugin's checkout moves it itself). */
async function arrangePayment(shop: GraphqlClient): Promise<void> {
  await shop.query(
    `mutation { transitionOrderToState(state: "ArrangingPayment") { __typename ... on ErrorResult { message } } }`,
  );
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('another payment method while a gateway charge is open', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({}, { GATEWAY_TIMEOUT_MS: '2000', GATEWAYKIT_BENCH: '1' });
  });
  afterEach(() => {
    stack.sandbox.setChaos({});
    stack.sandbox.clearFaults();
  });
  afterAll(async () => {
    await stack?.close();
  });

  const payByCard = (shop: GraphqlClient, cardNo: string) =>
    startPayment(shop, { paymentMethodCode: 'gatewaykit-card', card: cardInput(cardNo) });

  it('attack: a charge the gateway made but whose answer was lost (unknown) blocks another method; the order is paid once, by the gateway', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    stack.sandbox.addFault({ route: 'confirmCharge', kind: 'commit-then-drop' });
    stack.sandbox.setChaos({ drop: true });
    expect(await payByCard(shop, CARDS.success)).toMatchObject({ __typename: 'GatewaykitPaymentPending' });
    expect(stack.sandbox.order(`${order.code}-1`)?.orderStatus).toBe('success');

    const refused = await payWithOtherMethod(shop);
    expect(refused).toMatchObject({
      __typename: 'IneligiblePaymentMethodError',
      eligibilityCheckerMessage: expect.stringContaining('card payment through the gateway is still open'),
    });
    const waiting = await adminOrder(stack.admin, order.id);
    expect(waiting.state).toBe('ArrangingPayment');
    expect(waiting.payments).toEqual([]);

    // The gateway's own callback then settles the order, with its one payment.
    stack.sandbox.setChaos({});
    for (const delivery of stack.sandbox.callbacks().filter((c) => c.orderNo === `${order.code}-1`)) {
      await stack.sandbox.redeliver(delivery.id);
    }
    const paid = await eventually(
      () => adminOrder(stack.admin, order.id),
      (o) => o.state === 'PaymentSettled',
    );
    expect(paid.payments.map((p) => [p.method, p.state])).toEqual([['gatewaykit-card', 'Settled']]);
  });

  it('attack: a pending charge (its success callback lost) blocks another method', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    stack.sandbox.setChaos({ drop: true });
    expect(await payByCard(shop, CARDS.pendingThenSuccess)).toMatchObject({
      __typename: 'GatewaykitPaymentPending',
    });
    const refused = await payWithOtherMethod(shop);
    expect(refused.__typename).toBe('IneligiblePaymentMethodError');
    const waiting = await adminOrder(stack.admin, order.id);
    expect(waiting.state).toBe('ArrangingPayment');
    expect(waiting.payments).toEqual([]);
  });

  it('attack: while a charge is owed an answer the order cannot change (back to AddingItems, cancelled, a coupon, an address); its success pays the order as it was charged, and a declined order changes again (found by review)', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    stack.sandbox.setChaos({ drop: true });
    expect(await payByCard(shop, CARDS.pendingThenSuccess)).toMatchObject({
      __typename: 'GatewaykitPaymentPending',
    });
    const before = await adminOrder(stack.admin, order.id);
    for (const [mutation, variables] of [
      ['mutation { transitionOrderToState(state: "AddingItems") { __typename } }', {}],
      // Cancelling it would leave the charge's success no order to pay.
      ['mutation { transitionOrderToState(state: "Cancelled") { __typename } }', {}],
      [
        'mutation ($code: String!) { applyCouponCode(couponCode: $code) { __typename } }',
        { code: 'NO-SUCH' },
      ],
      [
        'mutation ($input: CreateAddressInput!) { setOrderShippingAddress(input: $input) { __typename } }',
        { input: { streetLine1: '1 Drop Street', city: 'Elsewhere', countryCode: 'US' } },
      ],
    ] as const) {
      const refused = await rawGraphql(shop, mutation, variables);
      expect(refused.body.errors?.[0]?.message).toBe(ORDER_CHANGE_REFUSED);
    }
    const unchanged = await adminOrder(stack.admin, order.id);
    expect(unchanged.state).toBe('ArrangingPayment');
    expect(unchanged.totalWithTax).toBe(before.totalWithTax);

    // The gateway's success, delivered at last, pays the order at the charged total.
    stack.sandbox.setChaos({});
    for (const delivery of stack.sandbox.callbacks().filter((c) => c.orderNo?.startsWith(order.code))) {
      await stack.sandbox.redeliver(delivery.id);
    }
    const paid = await eventually(
      () => adminOrder(stack.admin, order.id),
      (o) => o.state === 'PaymentSettled',
    );
    expect(paid.totalWithTax).toBe(before.totalWithTax);

    // A declined charge owes nothing: that order may change again.
    const declinedShop = shopClient(stack);
    await prepareOrder(declinedShop);
    expect((await payByCard(declinedShop, CARDS.decline)).__typename).toBe('GatewaykitPaymentError');
    const back = await rawGraphql(
      declinedShop,
      'mutation { transitionOrderToState(state: "AddingItems") { __typename ... on Order { state } } }',
      {},
    );
    expect(back.body.data).toEqual({ transitionOrderToState: { __typename: 'Order', state: 'AddingItems' } });
  });

  it('attack: a 3-D Secure page still open blocks another method (one click from a charge); once abandoned, the other method pays', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const started = await payByCard(shop, CARDS.challenge);
    expect(started.__typename).toBe('GatewaykitPaymentRedirect');
    if (started.__typename !== 'GatewaykitPaymentRedirect') return;
    expect((await payWithOtherMethod(shop)).__typename).toBe('IneligiblePaymentMethodError');
    expect((await adminOrder(stack.admin, order.id)).payments).toEqual([]);

    // The shopper leaves the page (its signed return says so): nothing can be charged there any more.
    expect((await completeRedirect(String(started.url), 'abandon')).returnStatus).toBe(303);
    expect(await payWithOtherMethod(shop)).toEqual({ __typename: 'Order', state: 'PaymentSettled' });
  });

  it("attack: addPaymentToOrder naming an unknown method, the plugin's own card method (no ticket), another channel's method or a method that is not a string pays nothing, sends nothing, and leaves no hold on the order", async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    await arrangePayment(shop);
    for (const method of [
      '"no-such-method"',
      '"gatewaykit-card"',
      '"jp-gatewaykit-card"',
      '123',
      '["bench-noop"]',
    ]) {
      const answer = await shop
        .query<{ addPaymentToOrder: AddPaymentAnswer }>(
          `mutation { addPaymentToOrder(input: { method: ${method}, metadata: {} }) {
             __typename ... on ErrorResult { message } } }`,
        )
        .then(
          ({ addPaymentToOrder }) => addPaymentToOrder.__typename,
          (error: unknown) => `refused: ${String(error).slice(0, 80)}`,
        );
      expect(answer, method).not.toBe('Order');
    }
    const after = await adminOrder(stack.admin, order.id);
    expect(after.state).toBe('ArrangingPayment');
    expect(after.payments.filter((p) => p.state === 'Settled')).toEqual([]);
    expect(
      stack.sandbox.requests().filter((r) => (r.body ?? '').includes(`"orderNo":"${order.code}-`)),
    ).toEqual([]);
    // No hold was left behind: another method and then nothing else pays the order at once.
    expect(await payWithOtherMethod(shop)).toEqual({ __typename: 'Order', state: 'PaymentSettled' });
  });

  it('honest: with no gateway charge open, or after a declined one, the other method pays the order', async () => {
    const fresh = shopClient(stack);
    const first = await prepareOrder(fresh);
    await arrangePayment(fresh);
    expect(await payWithOtherMethod(fresh)).toEqual({ __typename: 'Order', state: 'PaymentSettled' });
    expect((await adminOrder(stack.admin, first.id)).payments.map((p) => p.method)).toEqual(['bench-noop']);

    const declined = shopClient(stack);
    const second = await prepareOrder(declined);
    expect(await payByCard(declined, CARDS.decline)).toMatchObject({ __typename: 'GatewaykitPaymentError' });
    expect(await payWithOtherMethod(declined)).toEqual({ __typename: 'Order', state: 'PaymentSettled' });
    const paid = await adminOrder(stack.admin, second.id);
    // In no particular order: the Admin API lists an order's payments as the database returns them.
    expect(paid.payments.map((p) => [p.method, p.state]).sort()).toEqual([
      ['bench-noop', 'Settled'],
      ['gatewaykit-card', 'Declined'],
    ]);
  });

  it('attack: a card payment started while another method is still paying (two tabs) is refused before anything reaches the gateway', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    await arrangePayment(shop);
    const slowOther = payWithOtherMethod(shop, { waitMs: 2_000 });
    await pause(500);
    const card = await payByCard(shop, CARDS.success);
    expect(card).toMatchObject({
      __typename: 'GatewaykitPaymentError',
      errorCode: 'ORDER_STATE_ERROR',
      message: expect.stringContaining('Another payment for this order is in progress'),
    });
    expect(stack.sandbox.order(`${order.code}-1`)).toBeUndefined();
    expect(await slowOther).toEqual({ __typename: 'Order', state: 'PaymentSettled' });
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.payments.map((p) => [p.method, p.state])).toEqual([['bench-noop', 'Settled']]);
  });

  it('attack: two other-method payments at once (two tabs): the second is refused while the first runs', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    await arrangePayment(shop);
    const first = payWithOtherMethod(shop, { waitMs: 1_500 });
    await pause(400);
    expect(await payWithOtherMethod(shop)).toMatchObject({
      __typename: 'IneligiblePaymentMethodError',
      eligibilityCheckerMessage: expect.stringContaining('Another payment for this order is in progress'),
    });
    expect(await first).toEqual({ __typename: 'Order', state: 'PaymentSettled' });
    expect((await adminOrder(stack.admin, order.id)).payments.map((p) => p.method)).toEqual(['bench-noop']);
  });

  it('honest: another method declined lets go of the order at once; the card then pays it as attempt -1', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    await arrangePayment(shop);
    expect((await payWithOtherMethod(shop, { decline: true })).__typename).toBe('PaymentDeclinedError');
    const card = await payByCard(shop, CARDS.success);
    expect(card.__typename).toBe('GatewaykitPaymentCompleted');
    expect(stack.sandbox.order(`${order.code}-1`)?.orderStatus).toBe('success');
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.payments.map((p) => [p.method, p.state]).sort()).toEqual([
      ['bench-noop', 'Declined'],
      ['gatewaykit-card', 'Settled'],
    ]);
  });
});
