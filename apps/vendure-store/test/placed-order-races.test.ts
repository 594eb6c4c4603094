import type { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANTS } from '../src/gateways';
import { callbackUrl, postSignedCallback } from './support/callbacks';
import { type ClusterStack, startClusterStack } from './support/cluster';
import { paidByCard } from './support/cluster-orders';
import { holdRow, lockWaits, whileOrderLocked } from './support/order-row-lock';
import { asRefund, paymentsWithRefunds, refundById, refundOrder } from './support/refunds';
import {
  adminOrder,
  completeRedirect,
  eventually,
  orderNotes,
  prepareOrder,
  registerAndLogin,
  startPayment,
} from './support/shop';

/**
 * Writes that change nothing Vendure saves on the order itself, racing what a payment or a notice
 * writes under the order's row lock, on PostgreSQL (the cluster stack): a free item added to, or a
 * line changed on, an order a payment placed meanwhile; a settleRefund saving a refund over the
 * portal refund its notice bound to it meanwhile (docs/SECURITY.md §5). And Vendure's own line writes,
 * which must still go through.
 */

const PLACED = 'The order changed while this request changed it';

/** Why a request was refused (its GraphQL error), or how it answered instead. */
function refusal(outcome: PromiseSettledResult<unknown>): string {
  return outcome.status === 'rejected' ? String(outcome.reason) : `answered ${JSON.stringify(outcome.value)}`;
}

describe('races with a placed order and a bound refund (PostgreSQL, cluster stack)', () => {
  let stack: ClusterStack;
  let freeVariantId: string;
  beforeAll(async () => {
    stack = await startClusterStack();
    freeVariantId = await createFreeVariant(stack);
  }, 300_000);
  afterAll(async () => {
    await stack?.close();
  }, 60_000);

  /** The order's lines as stored: variant and quantity, by variant. */
  const linesOf = (orderId: string) =>
    stack.sql<{ variant: number; quantity: number }>(
      'SELECT "productVariantId" AS variant, quantity FROM order_line WHERE "orderId" = $1 ORDER BY "productVariantId"',
      [orderId],
    );

  /** What a payment being recorded writes to place the order (under its row lock). */
  const placeOrder = (orderId: string) => (recorder: Client) =>
    recorder.query(`UPDATE "order" SET state = 'PaymentSettled', active = false WHERE id = $1`, [orderId]);

  /** The id of the order's line of `variantId` (its only line when not given). */
  async function lineId(orderId: string, variantId?: string): Promise<string> {
    const rows = await stack.sql<{ id: number; variant: number }>(
      'SELECT id, "productVariantId" AS variant FROM order_line WHERE "orderId" = $1',
      [orderId],
    );
    const line = rows.find((row) => variantId === undefined || String(row.variant) === variantId);
    if (!line) throw new Error(`no line of variant ${variantId ?? 'any'} on order ${orderId}`);
    return String(line.id);
  }

  const addItem = (shop: ReturnType<ClusterStack['shop']>, variantId: string, quantity = 1) =>
    shop.query<{ addItemToOrder: { __typename: string; totalWithTax?: number } }>(
      `mutation ($id: ID!, $q: Int!) { addItemToOrder(productVariantId: $id, quantity: $q) {
         __typename ... on Order { totalWithTax } } }`,
      { id: variantId, q: quantity },
    );

  it('the honest case: a free item added to an active order is added, also while a writer that leaves the order in its state holds it', async () => {
    const shop = stack.shop();
    const order = await prepareOrder(shop);
    expect(await addItem(shop, freeVariantId)).toEqual({
      addItemToOrder: { __typename: 'Order', totalWithTax: order.totalWithTax },
    });
    const [paid] = await linesOf(order.id);
    expect(await linesOf(order.id)).toEqual([paid, { variant: Number(freeVariantId), quantity: 1 }]);
    // A writer holds the order and commits without moving it: the addition goes on after it.
    const more = await whileOrderLocked(
      stack,
      order.id,
      () => addItem(shop, freeVariantId, 2),
      (writer) => writer.query('UPDATE "order" SET "updatedAt" = now() WHERE id = $1', [order.id]),
      { orAnswered: true },
    );
    expect(more).toEqual({
      status: 'fulfilled',
      value: { addItemToOrder: { __typename: 'Order', totalWithTax: order.totalWithTax } },
    });
    expect(await linesOf(order.id)).toEqual([paid, { variant: Number(freeVariantId), quantity: 3 }]);
    const [active] = await stack.sql('SELECT state, active FROM "order" WHERE id = $1', [order.id]);
    expect(active).toEqual({ state: 'AddingItems', active: true });
  });

  it('attack: a free item added by a request that read the order before a payment placed it (no order column changes) is refused under the row lock: the placed order has no extra line', async () => {
    const shop = stack.shop();
    const order = await prepareOrder(shop);
    const before = await linesOf(order.id);
    expect(before).toHaveLength(1);
    // The shopper's addition read the order in AddingItems; a payment places it meanwhile.
    const change = await whileOrderLocked(
      stack,
      order.id,
      () => addItem(shop, freeVariantId),
      placeOrder(order.id),
      { orAnswered: true },
    );
    const [placed] = await stack.sql('SELECT state, active FROM "order" WHERE id = $1', [order.id]);
    expect(placed).toEqual({ state: 'PaymentSettled', active: false });
    expect(await linesOf(order.id)).toEqual(before);
    expect(refusal(change)).toContain(PLACED);
  });

  it('attack: a change of a free line that leaves every total as it was, by a request that read the order before a payment placed it, is refused: the line keeps its quantity', async () => {
    const shop = stack.shop();
    const order = await prepareOrder(shop);
    await addItem(shop, freeVariantId);
    const before = await linesOf(order.id);
    const [line] = await stack.sql<{ id: number }>(
      'SELECT id FROM order_line WHERE "orderId" = $1 AND "productVariantId" = $2',
      [order.id, freeVariantId],
    );
    const change = await whileOrderLocked(
      stack,
      order.id,
      () =>
        shop.query(`mutation ($id: ID!) { adjustOrderLine(orderLineId: $id, quantity: 4) { __typename } }`, {
          id: line?.id,
        }),
      placeOrder(order.id),
      { orAnswered: true },
    );
    expect(await linesOf(order.id)).toEqual(before);
    expect(refusal(change)).toContain(PLACED);
  });

  it("Vendure's own line writes still go through: an admin's modification and fulfilment of a placed order, a partial cancellation, a draft order's lines, and a guest's cart merged into a customer's on login", async () => {
    const { order } = await paidByCard(stack);
    const paidLine = await lineId(order.id);
    const [paid] = await linesOf(order.id);
    const paidVariant = paid?.variant ?? 0;
    const admin = stack.admin;
    await admin.query(
      `mutation ($id: ID!) { transitionOrderToState(id: $id, state: "Modifying") { __typename } }`,
      { id: order.id },
    );
    const { modifyOrder } = await admin.query<{ modifyOrder: { __typename: string; state?: string } }>(
      `mutation ($input: ModifyOrderInput!) { modifyOrder(input: $input) {
         __typename ... on Order { state } ... on ErrorResult { message } } }`,
      {
        input: {
          orderId: order.id,
          dryRun: false,
          addItems: [{ productVariantId: freeVariantId, quantity: 2 }],
        },
      },
    );
    expect(modifyOrder).toEqual({ __typename: 'Order', state: 'Modifying' });
    const { transitionOrderToState } = await admin.query<{
      transitionOrderToState: { __typename: string; state?: string };
    }>(
      `mutation ($id: ID!) { transitionOrderToState(id: $id, state: "PaymentSettled") { __typename ... on Order { state } } }`,
      { id: order.id },
    );
    expect(transitionOrderToState).toEqual({ __typename: 'Order', state: 'PaymentSettled' });
    const freeLine = await lineId(order.id, freeVariantId);
    const { addFulfillmentToOrder } = await admin.query<{ addFulfillmentToOrder: { __typename: string } }>(
      `mutation ($input: FulfillOrderInput!) { addFulfillmentToOrder(input: $input) { __typename } }`,
      {
        input: {
          lines: [{ orderLineId: paidLine, quantity: 1 }],
          handler: {
            code: 'manual-fulfillment',
            arguments: [
              { name: 'method', value: 'post' },
              { name: 'trackingCode', value: 'T-1' },
            ],
          },
        },
      },
    );
    expect(addFulfillmentToOrder.__typename).toBe('Fulfillment');
    const { cancelOrder } = await admin.query<{ cancelOrder: { __typename: string } }>(
      `mutation ($input: CancelOrderInput!) { cancelOrder(input: $input) { __typename } }`,
      {
        input: { orderId: order.id, lines: [{ orderLineId: freeLine, quantity: 1 }], reason: 'out of gifts' },
      },
    );
    expect(cancelOrder.__typename).toBe('Order');
    expect(await linesOf(order.id)).toEqual([
      { variant: paidVariant, quantity: 1 },
      { variant: Number(freeVariantId), quantity: 1 },
    ]);

    const { createDraftOrder } = await admin.query<{ createDraftOrder: { id: string } }>(
      'mutation { createDraftOrder { id } }',
    );
    const { addItemToDraftOrder } = await admin.query<{ addItemToDraftOrder: { __typename: string } }>(
      `mutation ($id: ID!, $input: AddItemToDraftOrderInput!) { addItemToDraftOrder(orderId: $id, input: $input) { __typename } }`,
      { id: createDraftOrder.id, input: { productVariantId: freeVariantId, quantity: 1 } },
    );
    expect(addItemToDraftOrder.__typename).toBe('Order');
    const draftLine = await lineId(createDraftOrder.id, freeVariantId);
    await admin.query(
      `mutation ($id: ID!, $input: AdjustDraftOrderLineInput!) { adjustDraftOrderLine(orderId: $id, input: $input) { __typename } }`,
      { id: createDraftOrder.id, input: { orderLineId: draftLine, quantity: 3 } },
    );
    expect(await linesOf(createDraftOrder.id)).toEqual([{ variant: Number(freeVariantId), quantity: 3 }]);

    // A customer's cart on one device, a guest's on another; the guest logs in as the customer.
    const email = `merge-${order.code.toLowerCase()}@example.com`;
    const device = stack.shop();
    await registerAndLogin(device, email);
    await addItem(device, String(paidVariant));
    const guest = stack.shop();
    await addItem(guest, freeVariantId, 2);
    await guest.query(
      `mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { __typename } }`,
      {
        u: email,
        p: 'test-password',
      },
    );
    const { activeOrder } = await guest.query<{ activeOrder: { id: string } }>('{ activeOrder { id } }');
    expect(await linesOf(activeOrder.id)).toEqual([
      { variant: paidVariant, quantity: 1 },
      { variant: Number(freeVariantId), quantity: 2 },
    ]);
  });

  it("attack: an admin's settleRefund that read a refund recorded by hand before a portal refund notice bound it waits for the notice's writer (the order's row lock) and keeps the binding: the notice's repeat finds that refund, another portal refund of the same amount is kept apart", async () => {
    const shop = stack.shop();
    const order = await prepareOrder(shop);
    const page = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (page.__typename !== 'GatewaykitPaymentRedirect') throw new Error(page.__typename);
    await completeRedirect(page.url, 'success');
    const paid = await eventually(
      () => adminOrder(stack.admin, order.id),
      (o) => o.state === 'PaymentSettled',
      20_000,
    );
    const [payment] = paid.payments;
    if (!payment?.transactionId) throw new Error('no settled payment');
    // The hosted method's refunds are made in the merchant portal and recorded here by hand.
    const byHand = asRefund(await refundOrder(stack.admin, payment.id, 100));
    expect(byHand).toMatchObject({ state: 'Pending', metadata: { gatewaykit: 'manual' } });

    const { activeChannel } = await stack.admin.query<{ activeChannel: { token: string } }>(
      '{ activeChannel { token } }',
    );
    const portalNotice = (batchNo: string) =>
      postSignedCallback({
        url: callbackUrl(stack.cluster.url, activeChannel.token, 'gatewaykit-hosted'),
        ...DEMO_MERCHANTS.main,
        type: 'refund.success',
        data: {
          orderNo: page.orderNo,
          tradeNo: payment.transactionId ?? '',
          batchNo,
          amount: '1.00',
          currency: paid.currencyCode,
          orderAmount: (paid.totalWithTax / 100).toFixed(2),
          orderCurrency: paid.currencyCode,
          reason: 'customer request',
        },
      });
    const first = `PORTAL-${order.code}`;

    // The notice's writer takes the order's row lock and is held at its write of the binding (this
    // connection holds the refund's row); the admin's settleRefund reads the refund meanwhile, then
    // waits for the order's row lock.
    const blocker = await holdRow(stack, 'refund', byHand.id);
    let settle: Promise<PromiseSettledResult<unknown>> | undefined;
    try {
      const notice = portalNotice(first);
      await eventually(
        () => lockWaits(stack, 'refund'),
        (n) => n >= 1,
        15_000,
      );
      settle = Promise.allSettled([
        stack.admin.query<{ settleRefund: { __typename: string; state?: string } }>(
          `mutation ($id: ID!) { settleRefund(input: { id: $id, transactionId: "by hand" }) {
             __typename ... on Refund { state } } }`,
          { id: byHand.id },
        ),
      ]).then(([outcome]) => outcome as PromiseSettledResult<unknown>);
      await eventually(
        () => lockWaits(stack, 'order'),
        (n) => n >= 1,
        15_000,
      );
      await blocker.release();
      expect(await notice).toEqual({ status: 200, body: 'success' });
    } finally {
      await blocker.release();
    }
    expect(await settle).toEqual({
      status: 'fulfilled',
      value: { settleRefund: { __typename: 'Refund', state: 'Settled' } },
    });
    // Settled by the admin, still the refund the portal refund is.
    const settled = await refundById(stack.admin, order.id, byHand.id);
    expect(settled).toMatchObject({
      state: 'Settled',
      metadata: { gatewaykit: 'manual', portalBatchNo: first },
    });

    const portalRefunds = async () =>
      (await paymentsWithRefunds(stack.admin, order.id))[0]?.metadata.portalRefunds;
    // Another portal refund of the same amount (notices are handled in the request): no refund
    // recorded here is left for it, so it is kept as one Vendure does not count.
    const second = `PORTAL-2-${order.code}`;
    expect(await portalNotice(second)).toEqual({ status: 200, body: 'success' });
    expect(await portalRefunds()).toEqual([second]);
    // The first notice again: it finds its refund, nothing more is kept.
    expect(await portalNotice(first)).toEqual({ status: 200, body: 'success' });
    expect(await portalRefunds()).toEqual([second]);
    expect(await refundById(stack.admin, order.id, byHand.id)).toMatchObject({
      metadata: { portalBatchNo: first },
    });
    expect(
      await orderNotes(stack.admin, order.id, `the refund ${byHand.id} recorded here by hand`),
    ).toHaveLength(1);
  });
});

/** A product whose one variant costs nothing (a free gift), through the Admin API: its variant id. */
async function createFreeVariant(stack: ClusterStack): Promise<string> {
  const { createProduct } = await stack.admin.query<{ createProduct: { id: string } }>(
    `mutation ($input: CreateProductInput!) { createProduct(input: $input) { id } }`,
    {
      input: {
        translations: [{ languageCode: 'en', name: 'Free gift', slug: 'free-gift', description: '' }],
      },
    },
  );
  const { createProductVariants } = await stack.admin.query<{ createProductVariants: { id: string }[] }>(
    `mutation ($input: [CreateProductVariantInput!]!) { createProductVariants(input: $input) { id } }`,
    {
      input: [
        {
          productId: createProduct.id,
          sku: 'FREE-GIFT',
          price: 0,
          stockOnHand: 1000,
          translations: [{ languageCode: 'en', name: 'Free gift' }],
        },
      ],
    },
  );
  const [variant] = createProductVariants;
  if (!variant) throw new Error('no free variant');
  return variant.id;
}
