import { signedReturnQuery } from '@gatewaykit/core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANTS } from '../src/gateways';
import type { GraphqlClient } from '../src/graphql-client';
import { JP_CHANNEL_TOKEN } from '../src/setup-store';
import { callbackUrl, deliveredCallbacks, postSignedCallback } from './support/callbacks';
import { adminOrder, completeRedirect, eventually, prepareOrder, startPayment } from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';

describe('gateway callbacks: duplicates, order, signatures, channels', () => {
  let stack: Stack;
  let defaultToken: string;
  beforeAll(async () => {
    stack = await startStack();
    const { activeChannel } = await stack.admin.query<{ activeChannel: { token: string } }>(
      `{ activeChannel { token } }`,
    );
    defaultToken = activeChannel.token;
  });
  afterEach(() => {
    stack.sandbox.setChaos({});
  });
  afterAll(async () => {
    await stack?.close();
  });

  async function hostedOrder(channelToken?: string, methodCode = 'gatewaykit-hosted') {
    const shop = shopClient(stack, channelToken);
    const order = await prepareOrder(shop);
    const started = await startPayment(shop, { paymentMethodCode: methodCode });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(`${started.__typename}`);
    return { shop, order, started };
  }

  /**
   * The yen channel also sells in dollars, and the active order's item has a dollar price: Vendure then
   * moves the order to dollars when a request in dollars changes it.
   */
  async function sellAlsoInDollars(shop: GraphqlClient) {
    const jpAdmin = stack.admin.withChannel(JP_CHANNEL_TOKEN);
    const { activeChannel } = await jpAdmin.query<{
      activeChannel: { id: string; availableCurrencyCodes: string[] };
    }>(`{ activeChannel { id availableCurrencyCodes } }`);
    if (!activeChannel.availableCurrencyCodes.includes('USD')) {
      await jpAdmin.query(
        `mutation ($input: UpdateChannelInput!) { updateChannel(input: $input) { __typename } }`,
        { input: { id: activeChannel.id, availableCurrencyCodes: ['JPY', 'USD'] } },
      );
    }
    const { activeOrder } = await shop.query<{
      activeOrder: { lines: { id: string; productVariant: { id: string } }[] };
    }>(`{ activeOrder { lines { id productVariant { id } } } }`);
    await jpAdmin.query(
      `mutation ($input: [UpdateProductVariantInput!]!) { updateProductVariants(input: $input) { id } }`,
      {
        input: [
          { id: activeOrder.lines[0]?.productVariant.id, prices: [{ currencyCode: 'USD', price: 1000 }] },
        ],
      },
    );
    return { activeOrder };
  }

  /** The same shopper's Shop API, asking in dollars. */
  function inDollars(shop: GraphqlClient): GraphqlClient {
    const client = shop.withChannel(JP_CHANNEL_TOKEN);
    (client as { url: string }).url = `${shop.url}?currencyCode=USD`;
    return client;
  }

  it('20 concurrent duplicate callbacks create exactly one Settled payment and all get `success`', async () => {
    stack.sandbox.setChaos({ copies: 20, noReturn: 'always' });
    const { order, started } = await hostedOrder();
    const back = await completeRedirect(started.url, 'success');
    expect(back.returnUrl).toBeNull();
    const mine = await deliveredCallbacks(stack.sandbox, started.orderNo, 20);
    expect(mine.length).toBeGreaterThanOrEqual(20);
    expect(mine.every((c) => c.attempts.at(-1)?.response === 'success')).toBe(true);
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments).toHaveLength(1);
    expect(paid.payments[0]?.state).toBe('Settled');
  });

  it('a stale fail arriving after the success is ignored', async () => {
    stack.sandbox.setChaos({ outOfOrder: true, noReturn: 'always' });
    const { order, started } = await hostedOrder();
    await completeRedirect(started.url, 'success');
    await deliveredCallbacks(stack.sandbox, started.orderNo, 2);
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments.map((p) => p.state)).toEqual(['Settled']);
  });

  for (const timing of ['before-return', 'after-return'] as const) {
    it(`callback ${timing.replace('-', ' ')}: one payment either way`, async () => {
      stack.sandbox.setChaos({ timing });
      const { order, started } = await hostedOrder();
      const back = await completeRedirect(started.url, 'success');
      expect(back.storefrontLocation).toContain('payment=succeeded');
      await deliveredCallbacks(stack.sandbox, started.orderNo);
      const paid = await adminOrder(stack.admin, order.id);
      expect(paid.state).toBe('PaymentSettled');
      expect(paid.payments).toHaveLength(1);
    });
  }

  it('rejects a callback with a bad signature (401) and a stale one, and changes nothing', async () => {
    const { order, started } = await hostedOrder();
    const gatewayOrder = stack.sandbox.order(started.orderNo);
    const data = {
      transactionType: 'Sale',
      orderNo: started.orderNo,
      tradeNo: gatewayOrder?.tradeNo ?? 'T1',
      orderAmount: gatewayOrder?.orderAmount ?? '0',
      orderCurrency: gatewayOrder?.orderCurrency ?? 'USD',
      orderStatus: 'success',
      orderInfo: 'Transaction Approved',
      remark: '',
    };
    const url = callbackUrl(stack.server.baseUrl, defaultToken, 'gatewaykit-hosted');
    const forged = await postSignedCallback({
      url,
      gatewayNo: DEMO_MERCHANTS.main.gatewayNo,
      signKey: 'not-the-merchant-key',
      type: 'transaction.success',
      data,
    });
    expect(forged.status).toBe(401);
    expect(forged.body).not.toBe('success');
    const stale = await postSignedCallback({
      url,
      ...DEMO_MERCHANTS.main,
      type: 'transaction.success',
      data,
      requestTime: Date.now() - 11 * 60 * 1000,
    });
    expect(stale.status).toBe(401);
    const unchanged = await adminOrder(stack.admin, order.id);
    expect(unchanged.state).toBe('ArrangingPayment');
    expect(unchanged.payments).toHaveLength(0);

    // The genuine signature over the same data is accepted.
    const genuine = await postSignedCallback({
      url,
      ...DEMO_MERCHANTS.main,
      type: 'transaction.success',
      data,
    });
    expect(genuine).toEqual({ status: 200, body: 'success' });
    const paid = await adminOrder(stack.admin, order.id);
    expect(paid.state).toBe('PaymentSettled');
  });

  it('rejects a callback whose amount differs from the attempt', async () => {
    const { order, started } = await hostedOrder();
    const gatewayOrder = stack.sandbox.order(started.orderNo);
    const url = callbackUrl(stack.server.baseUrl, defaultToken, 'gatewaykit-hosted');
    const res = await postSignedCallback({
      url,
      ...DEMO_MERCHANTS.main,
      type: 'transaction.success',
      data: {
        orderNo: started.orderNo,
        tradeNo: gatewayOrder?.tradeNo ?? 'T1',
        orderAmount: '0.01',
        orderCurrency: gatewayOrder?.orderCurrency ?? 'USD',
        orderStatus: 'success',
        orderInfo: 'Transaction Approved',
      },
    });
    expect(res.status).toBe(200);
    const after = await adminOrder(stack.admin, order.id);
    expect(after.state).toBe('ArrangingPayment');
    expect(after.payments).toHaveLength(0);
    expect(JSON.stringify(after.history.items)).toContain('Amount mismatch');
  });

  it('two channels, two merchants: each callback is verified with its own channel key', async () => {
    const jp = await hostedOrder(JP_CHANNEL_TOKEN, 'jp-gatewaykit-hosted');
    const jpAdmin = stack.admin.withChannel(JP_CHANNEL_TOKEN);
    const gatewayOrder = stack.sandbox.order(jp.started.orderNo);
    expect(gatewayOrder?.gatewayNo).toBe(DEMO_MERCHANTS.jp.gatewayNo);
    const data = {
      transactionType: 'Sale',
      orderNo: jp.started.orderNo,
      tradeNo: gatewayOrder?.tradeNo ?? 'T1',
      orderAmount: gatewayOrder?.orderAmount ?? '0',
      orderCurrency: gatewayOrder?.orderCurrency ?? 'JPY',
      orderStatus: 'success',
      orderInfo: 'Transaction Approved',
    };
    // Channel A's key for channel B's order, posted to B's endpoint: rejected, whether it names A's
    // gateway number or claims B's.
    for (const gatewayNo of [DEMO_MERCHANTS.main.gatewayNo, DEMO_MERCHANTS.jp.gatewayNo]) {
      const crossSigned = await postSignedCallback({
        url: callbackUrl(stack.server.baseUrl, JP_CHANNEL_TOKEN, 'jp-gatewaykit-hosted'),
        gatewayNo,
        signKey: DEMO_MERCHANTS.main.signKey,
        type: 'transaction.success',
        data,
      });
      expect(crossSigned.status).toBe(401);
    }
    // Channel A's key on A's endpoint, naming B's order: not an order of channel A, so answered like an
    // unknown orderNo (acknowledged, nothing changes; docs/inbound.md).
    const crossRouted = await postSignedCallback({
      url: callbackUrl(stack.server.baseUrl, defaultToken, 'gatewaykit-hosted'),
      ...DEMO_MERCHANTS.main,
      type: 'transaction.success',
      data,
    });
    expect(crossRouted).toEqual({ status: 200, body: 'success' });
    expect((await adminOrder(jpAdmin, jp.order.id)).payments).toHaveLength(0);

    // The real gateway callback (signed with the jp merchant's key) pays it.
    await completeRedirect(jp.started.url, 'success');
    const paid = await eventually(
      () => adminOrder(jpAdmin, jp.order.id),
      (o) => o.state === 'PaymentSettled',
    );
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments).toHaveLength(1);
  });

  it('yen: the gateway gets the amount without decimals and never ×100', async () => {
    const jp = await hostedOrder(JP_CHANNEL_TOKEN, 'jp-gatewaykit-hosted');
    expect(jp.order.currencyCode).toBe('JPY');
    const gatewayOrder = stack.sandbox.order(jp.started.orderNo);
    // Vendure keeps 2 decimals for every currency: ¥1,205 is 120500 in Vendure.
    expect(gatewayOrder?.orderAmount).toBe(String(jp.order.totalWithTax / 100));
    expect(gatewayOrder?.orderAmount).toMatch(/^\d+$/);
    expect(gatewayOrder?.orderCurrency).toBe('JPY');
    await completeRedirect(jp.started.url, 'success');
    const paid = await eventually(
      () => adminOrder(stack.admin.withChannel(JP_CHANNEL_TOKEN), jp.order.id),
      (o) => o.state === 'PaymentSettled',
    );
    expect(paid.payments[0]?.amount).toBe(jp.order.totalWithTax);
  });

  it('a success for an order the shopper took back to the cart still settles it', async () => {
    const { shop, order, started } = await hostedOrder();
    const back = await shop.query<{ transitionOrderToState: { __typename: string; state?: string } }>(
      `mutation { transitionOrderToState(state: "AddingItems") { __typename ... on Order { state } } }`,
    );
    expect(back.transitionOrderToState.state).toBe('AddingItems');
    await completeRedirect(started.url, 'success');
    const paid = await eventually(
      () => adminOrder(stack.admin, order.id),
      (o) => o.state === 'PaymentSettled',
    );
    expect(paid.state).toBe('PaymentSettled');
    expect(paid.payments).toHaveLength(1);
  });

  it("a dollar order of the yen channel stays in dollars when its callback strips a coupon (the callback counts in the attempt's currency)", async () => {
    const jpAdmin = stack.admin.withChannel(JP_CHANNEL_TOKEN);
    const shop = shopClient(stack, JP_CHANNEL_TOKEN);
    const order = await prepareOrder(shop);
    await sellAlsoInDollars(shop);
    const code = `DOLLARS-${order.code}`;
    const { createPromotion } = await jpAdmin.query<{ createPromotion: { id: string } }>(
      `mutation ($input: CreatePromotionInput!) { createPromotion(input: $input) { ... on Promotion { id } } }`,
      {
        input: {
          enabled: true,
          couponCode: code,
          conditions: [],
          actions: [{ code: 'order_percentage_discount', arguments: [{ name: 'discount', value: '10' }] }],
          translations: [{ languageCode: 'en', name: code }],
        },
      },
    );
    // The shopper applies the coupon asking in dollars: the order is now a dollar order.
    const applied = await inDollars(shop).query<{
      applyCouponCode: { __typename: string; currencyCode?: string };
    }>(
      `mutation ($code: String!) { applyCouponCode(couponCode: $code) { __typename ... on Order { currencyCode } } }`,
      { code },
    );
    expect(applied.applyCouponCode.currencyCode).toBe('USD');
    const started = await startPayment(inDollars(shop), { paymentMethodCode: 'jp-gatewaykit-hosted' });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    expect(stack.sandbox.order(started.orderNo)?.orderCurrency).toBe('USD');
    // The promotion ends while the shopper pays: adding the payment strips the coupon and recalculates.
    await jpAdmin.query(
      `mutation ($input: UpdatePromotionInput!) { updatePromotion(input: $input) { __typename } }`,
      { input: { id: createPromotion.id, enabled: false } },
    );
    stack.sandbox.setChaos({ noReturn: 'always' });
    await completeRedirect(started.url, 'success');
    await deliveredCallbacks(stack.sandbox, started.orderNo);
    const after = await adminOrder(jpAdmin, order.id);
    // Recalculated in the callback's context, the order would have become a yen order.
    expect(after.currencyCode).toBe('USD');
    // The coupon's end raised the total: the dollars taken no longer cover it, so the charge is flagged.
    const tradeNo = stack.sandbox.order(started.orderNo)?.tradeNo ?? '?';
    expect(JSON.stringify(after.history.items)).toContain(`Gateway trade ${tradeNo}`);
  });

  it('attack: an order moved to another currency while its payment was open is never settled by it (flagged for refund)', async () => {
    // A channel selling in two currencies: Vendure moves an order to the currency of the request that
    // changes it, and keeps every amount as a bare integer. ¥1,205 paid must never cover $1,205.
    const jpAdmin = stack.admin.withChannel(JP_CHANNEL_TOKEN);
    const { shop, order, started } = await hostedOrder(JP_CHANNEL_TOKEN, 'jp-gatewaykit-hosted');
    expect(order.currencyCode).toBe('JPY');
    const { activeOrder } = await sellAlsoInDollars(shop);
    const back = await shop.query<{ transitionOrderToState: { state?: string } }>(
      `mutation { transitionOrderToState(state: "AddingItems") { ... on Order { state } } }`,
    );
    expect(back.transitionOrderToState.state).toBe('AddingItems');
    const moved = await inDollars(shop).query<{
      adjustOrderLine: { __typename: string; currencyCode?: string; totalWithTax?: number };
    }>(
      `mutation ($id: ID!) { adjustOrderLine(orderLineId: $id, quantity: 2) {
         __typename ... on Order { currencyCode totalWithTax } } }`,
      { id: activeOrder.lines[0]?.id },
    );
    expect(moved.adjustOrderLine.currencyCode).toBe('USD');
    // The amount paid in yen would cover the order counted in dollars.
    expect(moved.adjustOrderLine.totalWithTax).toBeLessThanOrEqual(order.totalWithTax);

    await completeRedirect(started.url, 'success');
    await deliveredCallbacks(stack.sandbox, started.orderNo);
    const after = await adminOrder(jpAdmin, order.id);
    expect(after.currencyCode).toBe('USD');
    expect(after.state).not.toBe('PaymentSettled');
    expect(after.payments.filter((p) => p.state === 'Settled')).toHaveLength(0);
    const tradeNo = stack.sandbox.order(started.orderNo)?.tradeNo ?? '?';
    expect(JSON.stringify(after.history.items)).toContain(`Gateway trade ${tradeNo}`);
    expect(stack.server.output()).toContain(`the order's currency is now USD`);
  });

  it('attack: a partial payment in yen never settles the order once it is moved to dollars', async () => {
    const jpAdmin = stack.admin.withChannel(JP_CHANNEL_TOKEN);
    const { shop, order, started } = await hostedOrder(JP_CHANNEL_TOKEN, 'jp-gatewaykit-hosted');
    const { activeOrder } = await sellAlsoInDollars(shop);
    // Back to the cart while paying, one more item in yen: the payment then covers part of the order.
    await shop.query(`mutation { transitionOrderToState(state: "AddingItems") { __typename } }`);
    await shop.query(
      `mutation ($id: ID!) { adjustOrderLine(orderLineId: $id, quantity: 2) { __typename } }`,
      { id: activeOrder.lines[0]?.id },
    );
    await completeRedirect(started.url, 'success');
    const partly = await eventually(
      () => adminOrder(jpAdmin, order.id),
      (o) => o.payments.some((p) => p.state === 'Settled'),
    );
    expect(partly.currencyCode).toBe('JPY');
    expect(partly.state).toBe('ArrangingPayment');
    const paid = partly.payments.find((p) => p.state === 'Settled')!;

    // Then the order is moved to dollars, where the yen payment's bare number covers it.
    await inDollars(shop).query(`mutation { transitionOrderToState(state: "AddingItems") { __typename } }`);
    const moved = await inDollars(shop).query<{
      adjustOrderLine: { currencyCode?: string; totalWithTax?: number };
    }>(
      `mutation ($id: ID!) { adjustOrderLine(orderLineId: $id, quantity: 1) { ... on Order { currencyCode totalWithTax } } }`,
      { id: activeOrder.lines[0]?.id },
    );
    expect(moved.adjustOrderLine.currencyCode).toBe('USD');
    expect(moved.adjustOrderLine.totalWithTax).toBeLessThanOrEqual(paid.amount);
    await shop.query(`mutation { transitionOrderToState(state: "ArrangingPayment") { __typename } }`);
    const settle = await shop.query<{
      transitionOrderToState: { __typename: string; state?: string; transitionError?: string };
    }>(
      `mutation { transitionOrderToState(state: "PaymentSettled") {
         __typename ... on Order { state } ... on OrderStateTransitionError { transitionError } } }`,
    );
    expect(settle.transitionOrderToState.state).toBeUndefined();
    expect(settle.transitionOrderToState.transitionError).toContain(
      'Payments made in JPY do not count toward an order in USD',
    );
    expect((await adminOrder(jpAdmin, order.id)).state).toBe('ArrangingPayment');
  });

  it('a success for an order cancelled meanwhile is not applied, and is flagged for refund (log + order note)', async () => {
    const { order, started } = await hostedOrder();
    const cancelled = await stack.admin.query<{ cancelOrder: { __typename: string; state?: string } }>(
      `mutation ($id: ID!) { cancelOrder(input: { orderId: $id }) { __typename ... on Order { state } } }`,
      { id: order.id },
    );
    expect(cancelled.cancelOrder.state).toBe('Cancelled');
    await completeRedirect(started.url, 'success');
    await deliveredCallbacks(stack.sandbox, started.orderNo);
    const after = await adminOrder(stack.admin, order.id);
    expect(after.state).toBe('Cancelled');
    expect(after.payments.filter((p) => p.state === 'Settled')).toHaveLength(0);
    const tradeNo = stack.sandbox.order(started.orderNo)?.tradeNo ?? '?';
    expect(JSON.stringify(after.history.items)).toContain(`Gateway trade ${tradeNo}`);
    expect(stack.server.output()).toContain(`Gateway trade ${tradeNo} (orderNo ${started.orderNo}`);
  });

  it('a replayed, signed `fail` return after a success changes nothing and shows success', async () => {
    const { order, started } = await hostedOrder();
    await completeRedirect(started.url, 'success');
    const gatewayOrder = stack.sandbox.order(started.orderNo);
    const query = signedReturnQuery(
      {
        code: '0000',
        gatewayNo: DEMO_MERCHANTS.main.gatewayNo,
        message: 'Fail',
        orderAmount: gatewayOrder?.orderAmount ?? '',
        orderCurrency: gatewayOrder?.orderCurrency ?? '',
        orderInfo: 'Declined',
        orderNo: started.orderNo,
        orderStatus: 'fail',
        tradeNo: gatewayOrder?.tradeNo ?? '',
      },
      DEMO_MERCHANTS.main.signKey,
    );
    const res = await fetch(
      `${stack.server.baseUrl}/payments/gatewaykit/return/${defaultToken}/gatewaykit-hosted?${query}`,
      { redirect: 'manual' },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain('payment=succeeded');
    const forged = await fetch(
      `${stack.server.baseUrl}/payments/gatewaykit/return/${defaultToken}/gatewaykit-hosted?${query}`.replace(
        'orderStatus=fail',
        'orderStatus=success',
      ),
      { redirect: 'manual' },
    );
    expect(forged.status).toBe(401);
    expect(await forged.text()).toBe('invalid signature');
    const after = await adminOrder(stack.admin, order.id);
    expect(after.state).toBe('PaymentSettled');
    expect(after.payments.map((p) => p.state)).toEqual(['Settled']);
  });
});
