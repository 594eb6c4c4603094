import { createElementPaymentMethod } from '@gatewaykit/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphqlClient } from '../src/graphql-client';
import { paymentRequests } from './support/attacker';
import { uniqueEmail } from './support/email';
import {
  adminOrder,
  CARDS,
  cardInput,
  completeRedirect,
  prepareOrder,
  registerAndLogin,
  type StartResult,
  startPayment,
} from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';

/**
 * A fresh card-element method is charged only for the order that first named it
 * (docs/card-element.md#one-checkout-per-element-card). Element ids are time-based, not secret: the
 * attacker here has learnt the guest's id and names it on an order of their own, through the real server.
 */
describe('one order per fresh element card (stolen element ids) through the real server and sandbox', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({}, { GATEWAYKIT_ALLOW_RAW_CARD_DATA: '0' });
  });
  afterAll(async () => {
    await stack?.close();
  });

  const cardElementToken = async (shop: GraphqlClient) =>
    (
      await shop.query<{ gatewaykitCardElement: { sessionToken: string } }>(
        `{ gatewaykitCardElement(paymentMethodCode: "gatewaykit-card") { sessionToken } }`,
      )
    ).gatewaykitCardElement.sessionToken;

  /** What the element does in the shopper's browser: the iframe creates the method for their order. */
  const elementMethod = async (shop: GraphqlClient, cardNo: string) =>
    (
      await createElementPaymentMethod(stack.sandbox.url, await cardElementToken(shop), {
        card: cardInput(cardNo) as never,
      })
    ).customerPaymentMethodId;

  const payWith = (shop: GraphqlClient, pm: string, saveCard?: boolean) =>
    startPayment(shop, {
      paymentMethodCode: 'gatewaykit-card',
      elementPaymentMethodId: pm,
      ...(saveCard ? { saveCard } : {}),
    });

  /** Every charge the gateway received that names the card, whatever the order. */
  const chargesOf = (pm: string) =>
    stack.sandbox
      .requests()
      .filter((r) => r.operation === 'confirmCharge' && (r.body ?? '').includes(`"${pm}"`));
  const operations = (name: string) => stack.sandbox.requests().filter((r) => r.operation === name).length;

  const savedCards = async (shop: GraphqlClient) =>
    (
      await shop.query<{ gatewaykitSavedCards: { id: string }[] }>(
        `{ gatewaykitSavedCards(paymentMethodCode: "gatewaykit-card") { id } }`,
      )
    ).gatewaykitSavedCards.map((c) => c.id);

  const notYours = {
    __typename: 'GatewaykitPaymentError',
    errorCode: 'CARD_NOT_YOURS',
    message: expect.stringContaining('elementPaymentMethodId'),
  };

  /** A guest and a logged-in customer (asking to save it) name the card on their own orders: refused. */
  async function attackersAreRefused(pm: string): Promise<void> {
    const guest = shopClient(stack);
    const guestOrder = await prepareOrder(guest);
    expect(await payWith(guest, pm)).toMatchObject(notYours);
    expect(paymentRequests(stack.sandbox, guestOrder.code)).toEqual([]);
    expect((await adminOrder(stack.admin, guestOrder.id)).payments).toEqual([]);

    const customer = shopClient(stack);
    await registerAndLogin(customer, uniqueEmail('thief'));
    const customerOrder = await prepareOrder(customer, { loggedIn: true });
    const attaches = operations('attachPaymentMethod');
    for (const saveCard of [true, false]) {
      expect(await payWith(customer, pm, saveCard)).toMatchObject(notYours);
    }
    expect(paymentRequests(stack.sandbox, customerOrder.code)).toEqual([]);
    expect((await adminOrder(stack.admin, customerOrder.id)).payments).toEqual([]);
    // Nothing saved: the card was neither attached nor listed for the thief.
    expect(operations('attachPaymentMethod')).toBe(attaches);
    expect(await savedCards(customer)).toEqual([]);
  }

  it("a guest's element card, once paid for their order, cannot be charged or saved by anyone else", async () => {
    const owner = shopClient(stack);
    const order = await prepareOrder(owner);
    const pm = await elementMethod(owner, CARDS.success);
    expect((await payWith(owner, pm)).__typename).toBe('GatewaykitPaymentCompleted');
    expect((await adminOrder(stack.admin, order.id)).state).toBe('PaymentSettled');

    await attackersAreRefused(pm);
    // The owner's one charge is the only one the card ever saw.
    expect(chargesOf(pm)).toHaveLength(1);
    expect(stack.sandbox.order(`${order.code}-1`)?.customerPaymentMethodId).toBe(pm);
  });

  it('a thief naming the card while the owner is still paying is refused; the owner retries the same card and pays', async () => {
    const owner = shopClient(stack);
    const order = await prepareOrder(owner);
    const pm = await elementMethod(owner, CARDS.challenge);
    const first = await payWith(owner, pm);
    if (first.__typename !== 'GatewaykitPaymentRedirect') throw new Error(first.__typename);
    // The owner's 3-D Secure fails: the order is open again, its card still bound to it.
    await completeRedirect(first.url, 'fail', CARDS.challenge);
    expect((await adminOrder(stack.admin, order.id)).state).toBe('ArrangingPayment');

    await attackersAreRefused(pm);

    // The same order naming the same card again (a retry after a decline) is still its own.
    const retry = await payWith(owner, pm);
    if (retry.__typename !== 'GatewaykitPaymentRedirect') throw new Error(retry.__typename);
    await completeRedirect(retry.url, 'success', CARDS.challenge);
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.map((p) => p.state).sort()).toEqual(['Declined', 'Settled']);
    expect(chargesOf(pm).map((r) => JSON.parse(r.body ?? '{}').orderNo)).toEqual([
      `${order.code}-1`,
      `${order.code}-2`,
    ]);
  });

  it('several orders naming one fresh element card at once: exactly one is charged', async () => {
    const shoppers = Array.from({ length: 5 }, () => shopClient(stack));
    const orders = await Promise.all(shoppers.map((shop) => prepareOrder(shop)));
    const pm = await elementMethod(shoppers[0] as GraphqlClient, CARDS.success);
    const results: StartResult[] = await Promise.all(shoppers.map((shop) => payWith(shop, pm)));

    const accepted = results.filter((r) => r.__typename === 'GatewaykitPaymentCompleted');
    expect(accepted).toHaveLength(1);
    expect(results.filter((r) => r.__typename !== 'GatewaykitPaymentCompleted')).toEqual(
      Array.from({ length: 4 }, () => expect.objectContaining(notYours)),
    );
    expect(chargesOf(pm)).toHaveLength(1);
    const winner = orders[results.findIndex((r) => r.__typename === 'GatewaykitPaymentCompleted')];
    for (const order of orders) {
      const charged = paymentRequests(stack.sandbox, order.code).length;
      expect(charged).toBe(order === winner ? 1 : 0);
    }
  });
});
