import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('card payments (PCI opt-in raw card mode) through the real server and sandbox', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  const pay = (shop: ReturnType<typeof shopClient>, cardNo: string) =>
    startPayment(shop, { paymentMethodCode: 'gatewaykit-card', card: cardInput(cardNo) });

  it('a successful card charge settles the order synchronously', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const result = await pay(shop, CARDS.success);
    expect(result.__typename).toBe('GatewaykitPaymentCompleted');
    if (result.__typename === 'GatewaykitPaymentCompleted') expect(result.order.state).toBe('PaymentSettled');
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.payments).toHaveLength(1);
    expect(paid.payments[0]?.state).toBe('Settled');
    expect(paid.payments[0]?.metadata.maskCardNo).toMatch(/^\d{6}\*+4242$/);
  });

  it('decline, then retry with another card', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const declined = await pay(shop, CARDS.decline);
    expect(declined.__typename).toBe('GatewaykitPaymentError');
    if (declined.__typename === 'GatewaykitPaymentError') expect(declined.errorCode).toBe('PAYMENT_DECLINED');
    const afterDecline = await adminOrder(stack.admin, order.id);
    expect(afterDecline.state).toBe('ArrangingPayment');
    expect(afterDecline.payments.map((p) => p.state)).toEqual(['Declined']);

    const retried = await pay(shop, CARDS.success);
    expect(retried.__typename).toBe('GatewaykitPaymentCompleted');
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.map((p) => p.state).sort()).toEqual(['Declined', 'Settled']);
  });

  it('3-D Secure challenge passed: redirect, then the verified return settles the order', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const started = await pay(shop, CARDS.challenge);
    expect(started.__typename).toBe('GatewaykitPaymentRedirect');
    if (started.__typename !== 'GatewaykitPaymentRedirect') return;
    expect((await adminOrder(stack.admin, order.id)).state).toBe('ArrangingPayment');
    const back = await completeRedirect(started.url, 'success', CARDS.challenge);
    expect(back.storefrontLocation).toContain('payment=succeeded');
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.filter((p) => p.state === 'Settled')).toHaveLength(1);
  });

  it('3-D Secure failed, then a retry pays the same order', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const started = await pay(shop, CARDS.challengeFail);
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    const back = await completeRedirect(started.url, 'success', CARDS.challengeFail);
    expect(back.storefrontLocation).toContain('payment=failed');
    const failed = await adminOrder(stack.admin, order.id);
    expect(failed.state).toBe('ArrangingPayment');
    expect(failed.payments.every((p) => p.state !== 'Settled')).toBe(true);

    const retried = await pay(shop, CARDS.success);
    expect(retried.__typename).toBe('GatewaykitPaymentCompleted');
    expect((await adminOrder(stack.admin, order.id)).state).toBe('PaymentSettled');
  });

  it('a pending charge is settled by the later callback', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const started = await pay(shop, CARDS.pendingThenSuccess);
    expect(started.__typename).toBe('GatewaykitPaymentPending');
    const paid = await eventually(
      () => adminOrder(stack.admin, order.id),
      (o) => o.state === 'PaymentSettled',
    );
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments).toHaveLength(1);
  });

  it('commit-then-drop: the shopper sees pending, no second charge, the callback settles the order', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    stack.sandbox.addFault({ route: 'confirmCharge', kind: 'commit-then-drop' });
    // Hold the charge's callback so "paying again" deterministically happens while the outcome is unknown.
    stack.sandbox.setChaos({ drop: true });
    try {
      const started = await pay(shop, CARDS.success);
      expect(started.__typename).toBe('GatewaykitPaymentPending');
      const again = await pay(shop, CARDS.success);
      expect(again.__typename).not.toBe('GatewaykitPaymentCompleted');
      expect(stack.sandbox.order(`${order.code}-2`)).toBeUndefined();
      // An admin closing it now (the portal may not list the trade yet) would free the order for a
      // second charge while this one took money: refused while younger than the reconciliation's wait.
      const { gatewaykitCloseAttempt: early } = await stack.admin.query<{
        gatewaykitCloseAttempt: { closed: boolean; status: string; reason: string };
      }>(
        `mutation ($orderNo: String!, $note: String!) { gatewaykitCloseAttempt(orderNo: $orderNo, note: $note) { closed status reason } }`,
        { orderNo: `${order.code}-1`, note: 'no charge in the portal' },
      );
      expect(early).toMatchObject({ closed: false, status: 'unknown' });
      expect(early.reason).toMatch(
        /was sent \d+ s ago: .+ it can be closed in \d+ s, if it is still open then$/,
      );
      expect((await pay(shop, CARDS.success)).__typename).not.toBe('GatewaykitPaymentCompleted');
      expect(stack.sandbox.order(`${order.code}-2`)).toBeUndefined();
    } finally {
      stack.sandbox.setChaos({});
    }
    const held = stack.sandbox.callbacks().filter((delivery) => delivery.orderNo === `${order.code}-1`);
    expect(held.length).toBeGreaterThan(0);
    for (const delivery of held) await stack.sandbox.redeliver(delivery.id);
    const paid = await eventually(
      () => adminOrder(stack.admin, order.id),
      (o) => o.state === 'PaymentSettled',
    );
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments).toHaveLength(1);
    expect(stack.sandbox.order(`${order.code}-1`)?.orderStatus).toBe('success');
  });

  it('a double click (two concurrent starts) charges once', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const results = await Promise.all([pay(shop, CARDS.success), pay(shop, CARDS.success)]);
    expect(results.filter((r) => r.__typename === 'GatewaykitPaymentCompleted')).toHaveLength(1);
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments).toHaveLength(1);
    expect(stack.sandbox.order(`${order.code}-2`)).toBeUndefined();
  });

  it('a shopper cannot fake a payment with addPaymentToOrder', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    await shop.query(`mutation { transitionOrderToState(state: "ArrangingPayment") { __typename } }`);
    const attempt = shop
      .query<{ addPaymentToOrder: { __typename: string } }>(
        `mutation { addPaymentToOrder(input: { method: "gatewaykit-hosted", metadata: { state: "Settled", tradeNo: "fake", gatewaykitTicket: "guess" } }) { __typename } }`,
      )
      .then((r) => r.addPaymentToOrder.__typename)
      .catch((e: Error) => e.message);
    // Refused by the method's handler itself, not by some other error on the way.
    expect(await attempt).toMatch(/must be started with the gatewaykitStartPayment mutation/);
    const after = await adminOrder(stack.admin, order.id);
    expect(after.state).toBe('ArrangingPayment');
    expect(after.payments.filter((p) => p.state === 'Settled')).toHaveLength(0);
  });

  it('no card number in the server log or the database', async () => {
    const db = await stack.databaseText();
    for (const cardNo of Object.values(CARDS)) {
      expect(db.includes(cardNo)).toBe(false);
      expect(stack.server.output().includes(cardNo)).toBe(false);
    }
  });
});
