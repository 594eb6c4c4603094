/**
 * Another payment method while a gateway charge is open, against the real Vendure server and the
 * sandbox: a charge whose outcome is not known yet may still take the shopper's money, so the order
 * must not be paid a second time through another handler meanwhile. The store's benchmark no-op handler
 * (`bench-noop`, GATEWAYKIT_BENCH=1) stands for any other payment method: it settles whatever it is given.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GraphqlClient } from '../src/graphql-client';
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

async function payWithOtherMethod(shop: GraphqlClient): Promise<AddPaymentAnswer> {
  const { addPaymentToOrder } = await shop.query<{ addPaymentToOrder: AddPaymentAnswer }>(
    `mutation { addPaymentToOrder(input: { method: "bench-noop", metadata: {} }) {
       __typename ... on Order { state } ... on ErrorResult { message }
       ... on IneligiblePaymentMethodError { eligibilityCheckerMessage } } }`,
  );
  return addPaymentToOrder;
}

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

  it('honest: with no gateway charge open, or after a declined one, the other method pays the order', async () => {
    const fresh = shopClient(stack);
    const first = await prepareOrder(fresh);
    // The plugin's checkout moves the order itself; another method needs the storefront to.
    await fresh.query(
      `mutation { transitionOrderToState(state: "ArrangingPayment") { __typename ... on ErrorResult { message } } }`,
    );
    expect(await payWithOtherMethod(fresh)).toEqual({ __typename: 'Order', state: 'PaymentSettled' });
    expect((await adminOrder(stack.admin, first.id)).payments.map((p) => p.method)).toEqual(['bench-noop']);

    const declined = shopClient(stack);
    const second = await prepareOrder(declined);
    expect(await payByCard(declined, CARDS.decline)).toMatchObject({ __typename: 'GatewaykitPaymentError' });
    expect(await payWithOtherMethod(declined)).toEqual({ __typename: 'Order', state: 'PaymentSettled' });
    const paid = await adminOrder(stack.admin, second.id);
    expect(paid.payments.map((p) => [p.method, p.state])).toEqual([
      ['gatewaykit-card', 'Declined'],
      ['bench-noop', 'Settled'],
    ]);
  });
});
