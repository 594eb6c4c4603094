/**
 * A gateway success the order cannot take as it was charged (docs/SECURITY.md §6), against the real
 * Vendure server and the sandbox: the money is never charged a second time, the merchant is told,
 * and the merchant is the one who frees the order (gatewaykitCloseAttempt).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { GraphqlClient } from '../src/graphql-client';
import { JP_CHANNEL_TOKEN } from '../src/setup-store';
import { paymentRequests } from './support/attacker';
import { deliveredCallbacks } from './support/callbacks';
import { applyEndingCoupon } from './support/ending-coupon';
import {
  adminOrder,
  CARDS,
  cardInput,
  completeRedirect,
  eventually,
  orderNotes,
  prepareOrder,
  setPaymentMethodEnabled,
  startPayment,
} from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';

const CLOSE_ATTEMPT = `mutation ($orderNo: String!, $note: String!) {
  gatewaykitCloseAttempt(orderNo: $orderNo, note: $note) { closed status reason } }`;

/** Orders shipped here meet an order process that throws once they are PaymentSettled (failing-order-process.ts). */
const FAILING_HOOK_CITY = 'Throwington';

describe('a gateway success the order cannot take as it was charged', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack(
      {},
      {
        GATEWAY_TIMEOUT_MS: '2000',
        GATEWAYKIT_BENCH: '1',
        // Reconciled at once, only when these tests ask.
        GATEWAYKIT_RECONCILE_AFTER_MS: '0',
        GATEWAYKIT_RECONCILE_NO_RECORD_MS: '1000',
        GATEWAYKIT_RECONCILE_SCHEDULE: '0 0 1 1 *',
        GATEWAYKIT_TEST_FAIL_AFTER_SETTLE_CITY: FAILING_HOOK_CITY,
      },
    );
  });
  afterEach(() => {
    stack.sandbox.setChaos({});
    stack.sandbox.clearFaults();
  });
  afterAll(async () => {
    await stack?.close();
  });

  const payByCard = (shop: GraphqlClient) =>
    startPayment(shop, { paymentMethodCode: 'gatewaykit-card', card: cardInput(CARDS.success) });

  /** Pays with the demo's no-op handler, which stands for any other payment method. */
  async function payWithOtherMethod(shop: GraphqlClient) {
    const { addPaymentToOrder } = await shop.query<{
      addPaymentToOrder: { __typename: string; eligibilityCheckerMessage?: string };
    }>(
      `mutation { addPaymentToOrder(input: { method: "bench-noop", metadata: {} }) {
         __typename ... on IneligiblePaymentMethodError { eligibilityCheckerMessage } } }`,
    );
    return addPaymentToOrder;
  }

  /** An order with a coupon whose promotion the merchant ends while the shopper pays. */
  async function couponEndedWhilePaying() {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const coupon = await applyEndingCoupon(stack.admin, shop, order.code);
    await coupon.end();
    return { shop, order, orderNo: `${order.code}-1` };
  }

  it('attack: a coupon ended while paying: the charge Vendure refuses keeps the order, the shopper is told, and nothing is charged again, by card or another method', async () => {
    const { shop, order, orderNo } = await couponEndedWhilePaying();
    const first = await payByCard(shop);
    expect(first).toMatchObject({
      __typename: 'GatewaykitPaymentError',
      errorCode: 'PAID_NOT_APPLIED',
      message: expect.stringContaining('could not be applied to the order'),
    });
    expect(stack.sandbox.order(orderNo)?.orderStatus).toBe('success');
    const tradeNo = stack.sandbox.order(orderNo)?.tradeNo ?? '?';
    const flagged = await adminOrder(stack.admin, order.id);
    expect(flagged.payments.filter((p) => p.state === 'Settled')).toHaveLength(0);
    expect(JSON.stringify(flagged.history.items)).toContain(`Gateway trade ${tradeNo}`);
    expect(stack.server.output()).toContain(`PAID BUT NOT APPLIED: order ${order.code}`);

    // The shopper pays again: told the same, and nothing reaches the gateway.
    expect(await payByCard(shop)).toMatchObject({
      __typename: 'GatewaykitPaymentError',
      errorCode: 'PAID_NOT_APPLIED',
    });
    expect(await payWithOtherMethod(shop)).toMatchObject({
      __typename: 'IneligiblePaymentMethodError',
      eligibilityCheckerMessage: expect.stringContaining('could not be applied to the order'),
    });
    expect(paymentRequests(stack.sandbox, order.code)).toHaveLength(1);
    const after = await adminOrder(stack.admin, order.id);
    expect(after.payments.filter((p) => p.state === 'Settled')).toHaveLength(0);
  });

  it('a chargeback on a payment the order could not take: noted once on the order, telling the merchant not to refund it in the portal as well', async () => {
    const { shop, order, orderNo } = await couponEndedWhilePaying();
    expect(await payByCard(shop)).toMatchObject({ errorCode: 'PAID_NOT_APPLIED' });
    const tradeNo = stack.sandbox.order(orderNo)?.tradeNo ?? '?';
    const chargeback = stack.sandbox.raiseChargeback({
      tradeNo,
      amount: '12.34',
      reason: 'D4837-No Cardholder Authorization',
      replyDeadline: '2026-12-24',
    });
    const noted = async () =>
      (
        await orderNotes(
          stack.admin,
          order.id,
          `Chargeback ${chargeback.batchNo} on gateway trade ${tradeNo}`,
        )
      ).filter((note) => note.startsWith(`Chargeback ${chargeback.batchNo}`));
    const [delivery] = await eventually(
      async () =>
        stack.sandbox.callbacks().filter((c) => c.batchNo === chargeback.batchNo && c.state === 'delivered'),
      (delivered) => delivered.length > 0,
    );
    expect(await noted()).toEqual([
      expect.stringContaining(
        'This payment was never applied to the order: the bank has taken the money back, so do not also refund it in the merchant portal.',
      ),
    ]);
    // The same notice again adds nothing.
    expect((await stack.sandbox.redeliver(String(delivery?.id)))?.attempts.at(-1)?.response).toBe('success');
    expect(await noted()).toHaveLength(1);
  });

  it('attack: paid on the gateway page after the coupon ended: the return sends the shopper to payment=not_applied, not to a page waiting for a paid order', async () => {
    const { shop, order, orderNo } = await couponEndedWhilePaying();
    const started = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    const back = await completeRedirect(String(started.url), 'success');
    expect(back.returnStatus).toBe(303);
    expect(new URL(String(back.storefrontLocation)).searchParams.get('payment')).toBe('not_applied');
    expect(stack.sandbox.order(orderNo)?.orderStatus).toBe('success');
    expect((await adminOrder(stack.admin, order.id)).payments).toEqual([]);
  });

  it('the merchant refunds it in the portal and releases the order with gatewaykitCloseAttempt: it stays succeeded, the note names the admin, the order can be paid once more', async () => {
    const { shop, order, orderNo } = await couponEndedWhilePaying();
    expect(await payByCard(shop)).toMatchObject({ errorCode: 'PAID_NOT_APPLIED' });
    const note = 'refunded in the merchant portal';
    const { gatewaykitCloseAttempt } = await stack.admin.query<{
      gatewaykitCloseAttempt: { closed: boolean; status: string; reason: string };
    }>(CLOSE_ATTEMPT, { orderNo, note });
    expect(gatewaykitCloseAttempt).toMatchObject({ closed: true, status: 'succeeded' });
    const released = await adminOrder(stack.admin, order.id);
    expect(JSON.stringify(released.history.items)).toContain(
      `Payment attempt ${orderNo} (charged but not applied) released by superadmin: ${note}`,
    );
    // Once: a second release changes nothing.
    const again = await stack.admin.query<{ gatewaykitCloseAttempt: { closed: boolean; status: string } }>(
      CLOSE_ATTEMPT,
      { orderNo, note },
    );
    expect(again.gatewaykitCloseAttempt).toMatchObject({ closed: false, status: 'succeeded' });

    // The order is payable again at its new total (the coupon is gone), charged once.
    expect(await payByCard(shop)).toMatchObject({ __typename: 'GatewaykitPaymentCompleted' });
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.filter((p) => p.state === 'Settled')).toHaveLength(1);
    expect(paymentRequests(stack.sandbox, order.code)).toHaveLength(2);
  });

  async function reconcile() {
    const { gatewaykitReconcile } = await stack.admin.query<{
      gatewaykitReconcile: { items: { reference: string; before: string; after: string; reason: string }[] };
    }>(`mutation { gatewaykitReconcile { items { reference before after reason } } }`);
    return gatewaykitReconcile.items;
  }

  const setCardMethodEnabled = (enabled: boolean) =>
    setPaymentMethodEnabled(stack.admin, 'gatewaykit-card', enabled);

  it('attack: a charge whose answer was lost, its method disabled meanwhile: the reconciliation records it charged but not applied (error log, order note) and nothing charges the order again', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const orderNo = `${order.code}-1`;
    stack.sandbox.addFault({ route: 'confirmCharge', kind: 'commit-then-drop' });
    stack.sandbox.setChaos({ drop: true });
    expect(await payByCard(shop)).toMatchObject({ __typename: 'GatewaykitPaymentPending' });
    stack.sandbox.setChaos({});
    stack.sandbox.clearFaults();
    const tradeNo = stack.sandbox.order(orderNo)?.tradeNo ?? '?';
    expect(stack.sandbox.order(orderNo)?.orderStatus).toBe('success');

    await setCardMethodEnabled(false);
    try {
      const logFrom = stack.server.output().length;
      expect((await reconcile()).find((i) => i.reference === orderNo)).toMatchObject({
        before: 'unknown',
        after: 'succeeded',
      });
      expect(stack.server.output().slice(logFrom)).toContain(
        `PAID BUT NOT APPLIED: order ${order.code}: Gateway trade ${tradeNo}`,
      );
      const held = await adminOrder(stack.admin, order.id);
      expect(held.payments.filter((p) => p.state === 'Settled')).toHaveLength(0);
      expect(JSON.stringify(held.history.items)).toContain(`Gateway trade ${tradeNo}`);
      // Settled for the reconciliation: not asked about again.
      expect((await reconcile()).filter((i) => i.reference === orderNo)).toEqual([]);
    } finally {
      await setCardMethodEnabled(true);
    }
    // The method back, the order is still held until the merchant releases it.
    expect(await payByCard(shop)).toMatchObject({ errorCode: 'PAID_NOT_APPLIED' });
    expect(paymentRequests(stack.sandbox, order.code)).toHaveLength(1);
  });

  it('attack: a charge the gateway never recorded, its method disabled meanwhile, still ends failed and frees the order', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const orderNo = `${order.code}-1`;
    // The charge never reaches the gateway's books: the request hangs and the client gives up.
    stack.sandbox.addFault({ route: 'confirmCharge', kind: 'hang' });
    expect(await payByCard(shop)).toMatchObject({ __typename: 'GatewaykitPaymentPending' });
    expect(stack.sandbox.order(orderNo)).toBeUndefined();

    await setCardMethodEnabled(false);
    try {
      expect((await reconcile()).find((i) => i.reference === orderNo)).toMatchObject({
        before: 'unknown',
        after: 'failed',
      });
    } finally {
      await setCardMethodEnabled(true);
    }
    // No Declined payment (Vendure refuses the disabled method), but the order is free again.
    expect(await payByCard(shop)).toMatchObject({ __typename: 'GatewaykitPaymentCompleted' });
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.map((p) => p.state)).toEqual(['Settled']);
  });

  it('attack: a method removed from its channel while its charge was unknown: each reconciliation says so at error level, and the merchant can still close the attempt, which frees the order', async () => {
    const jpAdmin = stack.admin.withChannel(JP_CHANNEL_TOKEN);
    const jpShop = shopClient(stack, JP_CHANNEL_TOKEN);
    const order = await prepareOrder(jpShop);
    const orderNo = `${order.code}-1`;
    // The charge never reaches the gateway's books: the request hangs and the client gives up.
    stack.sandbox.addFault({ route: 'confirmCharge', kind: 'hang' });
    const pay = () =>
      startPayment(jpShop, { paymentMethodCode: 'jp-gatewaykit-card', card: cardInput(CARDS.success) });
    expect(await pay()).toMatchObject({ __typename: 'GatewaykitPaymentPending' });

    const { paymentMethods } = await jpAdmin.query<{
      paymentMethods: { items: { id: string; code: string }[] };
    }>(`{ paymentMethods(options: { take: 50 }) { items { id code } } }`);
    const methodId = paymentMethods.items.find((m) => m.code === 'jp-gatewaykit-card')?.id;
    const { channels } = await stack.admin.query<{ channels: { items: { id: string; token: string }[] } }>(
      `{ channels { items { id token } } }`,
    );
    const channelId = channels.items.find((c) => c.token === JP_CHANNEL_TOKEN)?.id;
    const move = (mutation: string) =>
      stack.admin.query(
        `mutation ($input: ${mutation === 'assign' ? 'AssignPaymentMethodsToChannelInput' : 'RemovePaymentMethodsFromChannelInput'}!) {
           ${mutation === 'assign' ? 'assignPaymentMethodsToChannel' : 'removePaymentMethodsFromChannel'}(input: $input) { __typename } }`,
        { input: { paymentMethodIds: [methodId], channelId } },
      );
    await move('remove');
    try {
      const logFrom = stack.server.output().length;
      const { gatewaykitReconcile } = await jpAdmin.query<{
        gatewaykitReconcile: { items: { reference: string; after: string; reason: string }[] };
      }>(`mutation { gatewaykitReconcile { items { reference after reason } } }`);
      expect(gatewaykitReconcile.items.find((i) => i.reference === orderNo)).toMatchObject({
        after: 'unknown',
        reason: expect.stringContaining('No gateway payment method'),
      });
      expect(stack.server.output().slice(logFrom)).toMatch(
        // Level and text, with or without the colours a CI terminal adds between them.
        new RegExp(`error\\b.*Order ${order.code}: payment attempt ${orderNo} cannot be reconciled`),
      );
      const { gatewaykitCloseAttempt } = await jpAdmin.query<{
        gatewaykitCloseAttempt: { closed: boolean; status: string };
      }>(CLOSE_ATTEMPT, { orderNo, note: 'portal shows no charge' });
      expect(gatewaykitCloseAttempt).toMatchObject({ closed: true, status: 'failed' });
    } finally {
      await move('assign');
    }
    expect(await pay()).toMatchObject({ __typename: 'GatewaykitPaymentCompleted' });
    expect((await adminOrder(jpAdmin, order.id)).payments.map((p) => p.state)).toEqual(['Settled']);
  });

  it('attack: a gateway page opened for a larger total, the total lowered, then the old page paid: the payment is kept and the overpayment flagged for a refund of the difference', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop, { quantity: 3 });
    const started = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    await shop.query(`mutation { transitionOrderToState(state: "AddingItems") { __typename } }`);
    const { activeOrder } = await shop.query<{ activeOrder: { lines: { id: string }[] } }>(
      `{ activeOrder { lines { id } } }`,
    );
    const { adjustOrderLine } = await shop.query<{ adjustOrderLine: { totalWithTax: number } }>(
      `mutation ($id: ID!) { adjustOrderLine(orderLineId: $id, quantity: 1) { ... on Order { totalWithTax } } }`,
      { id: activeOrder.lines[0]?.id },
    );
    const difference = order.totalWithTax - adjustOrderLine.totalWithTax;
    expect(difference).toBeGreaterThan(0);

    await completeRedirect(started.url, 'success');
    await deliveredCallbacks(stack.sandbox, started.orderNo);
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.map((p) => [p.state, p.amount])).toEqual([['Settled', order.totalWithTax]]);
    const overpaid = `overpaid by ${(difference / 100).toFixed(2)} ${order.currencyCode}: refund the difference`;
    expect(JSON.stringify(paid.history.items)).toContain(overpaid);
    expect(stack.server.output()).toContain(`Order ${order.code}: `);
    expect(stack.server.output()).toContain(overpaid);
  });

  it('a payment of exactly what the order owes adds no overpayment note', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    expect(await payByCard(shop)).toMatchObject({ __typename: 'GatewaykitPaymentCompleted' });
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(JSON.stringify(paid.history.items)).not.toContain('overpaid');
  });

  it("attack: another plugin's order process throws after Vendure saved the payment: nothing of it stays on the order, the charge is reported unapplied and held, nothing is charged again", async () => {
    // Were the payment left on the order (no savepoint), the merchant would be told to add it a second time.
    const shop = shopClient(stack);
    const order = await prepareOrder(shop, { city: FAILING_HOOK_CITY });
    const logFrom = stack.server.output().length;
    expect(await payByCard(shop)).toMatchObject({ errorCode: 'PAID_NOT_APPLIED' });
    const log = stack.server.output().slice(logFrom);
    expect(log).toContain(`PAID BUT NOT APPLIED: order ${order.code}`);
    expect(log).toContain(`test order process: failed after ${order.code} was settled`);
    const after = await adminOrder(stack.admin, order.id);
    expect(after.payments).toEqual([]);
    expect(after.state).toBe('ArrangingPayment');
    expect(await payByCard(shop)).toMatchObject({ errorCode: 'PAID_NOT_APPLIED' });
    expect(paymentRequests(stack.sandbox, order.code)).toHaveLength(1);
  });
});
