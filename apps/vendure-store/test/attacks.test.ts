import { randomUUID } from 'node:crypto';
import { signedReturnQuery } from '@gatewaykit/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANTS } from '../src/gateways';
import type { GraphqlClient } from '../src/graphql-client';
import { JP_CHANNEL_TOKEN } from '../src/setup-store';
import { gatewayRequests, isServerFailure, paymentRequests, rawGraphql } from './support/attacker';
import { callbackUrl, postSignedCallback } from './support/callbacks';
import { uniqueEmail } from './support/email';
import {
  adminOrder,
  CARDS,
  cardInput,
  completeRedirect,
  eventually,
  prepareOrder,
  registerAndLogin,
  startPayment,
} from './support/shop';
import { type Stack, shopClient, startStack } from './support/stack';

/** A second gateway method in the channel whose credentials the attacker knows (e.g. a staff test method). */
const KNOWN_KEY_METHOD = {
  code: 'gatewaykit-staff-test',
  gatewayNo: '99990001',
  signKey: 'publicly-known-test-key',
};

const SAVE_CARD = `mutation ($input: GatewaykitSaveCardInput!) { gatewaykitSaveCard(input: $input) { id last4 } }`;

describe('attacks through the public Shop API and the gateway endpoints (issue #12)', () => {
  let stack: Stack;
  let defaultToken: string;

  beforeAll(async () => {
    // A short gateway timeout lets a hung charge end (as unknown) within a test.
    stack = await startStack({}, { GATEWAY_TIMEOUT_MS: '3000' });
    const { activeChannel } = await stack.admin.query<{ activeChannel: { token: string } }>(
      `{ activeChannel { token } }`,
    );
    defaultToken = activeChannel.token;
    await createMethod(stack.admin, KNOWN_KEY_METHOD.code, 'hosted', {
      gatewayNo: KNOWN_KEY_METHOD.gatewayNo,
      signKey: KNOWN_KEY_METHOD.signKey,
    });
    // Eligible only for orders up to 1 (minor unit): every demo order is too big for it.
    await createMethod(stack.admin, 'gatewaykit-card-small-orders', 'card', DEMO_MERCHANTS.main, {
      code: 'max-order-total',
      arguments: [{ name: 'maxTotal', value: '1' }],
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  async function createMethod(
    admin: GraphqlClient,
    code: string,
    mode: 'card' | 'hosted',
    merchant: { gatewayNo: string; signKey: string },
    checker?: { code: string; arguments: { name: string; value: string }[] },
  ): Promise<void> {
    const args = [
      { name: 'gatewayNo', value: merchant.gatewayNo },
      { name: 'signKey', value: merchant.signKey },
      { name: 'environment', value: 'custom' },
      { name: 'baseUrl', value: stack.sandbox.url },
      { name: 'mode', value: mode },
      { name: 'localMethod', value: '' },
    ];
    await admin.query(
      `mutation ($input: CreatePaymentMethodInput!) { createPaymentMethod(input: $input) { id } }`,
      {
        input: {
          code,
          enabled: true,
          handler: { code: 'gatewaykit', arguments: args },
          ...(checker ? { checker } : {}),
          translations: [{ languageCode: 'en', name: code, description: '' }],
        },
      },
    );
  }

  it('attack: a callback body far larger than any gateway callback is refused (413) before it is buffered, and the server keeps answering', async () => {
    const url = callbackUrl(stack.server.baseUrl, defaultToken, 'gatewaykit-card');
    const big = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"type":"transaction.success","data":{"orderInfo":"${'x'.repeat(300 * 1024)}"}}`,
    }).catch((error: unknown) => error);
    // The server answers 413 and closes the request: the client sees the answer, or the reset if it was
    // still sending. Never the verifier's 401, nor a 500.
    expect(big instanceof Error ? 'reset' : String((big as Response).status)).toMatch(/^(413|reset)$/);
    const after = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(after.status).toBe(401);
  });

  it('#4 a callback signed with another method’s known key cannot settle the victim’s order (answered like an unknown orderNo)', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const started = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    const gatewayOrder = stack.sandbox.order(started.orderNo);
    const data = {
      transactionType: 'Sale',
      orderNo: started.orderNo,
      tradeNo: 'T-forged-1',
      orderAmount: gatewayOrder?.orderAmount ?? '0',
      orderCurrency: gatewayOrder?.orderCurrency ?? 'USD',
      orderStatus: 'success',
      orderInfo: 'Transaction Approved',
    };
    const forged = await postSignedCallback({
      url: callbackUrl(stack.server.baseUrl, defaultToken, KNOWN_KEY_METHOD.code),
      gatewayNo: KNOWN_KEY_METHOD.gatewayNo,
      signKey: KNOWN_KEY_METHOD.signKey,
      type: 'transaction.success',
      data,
    });
    // Acknowledged like any orderNo this method never sent (docs/inbound.md); the order is untouched.
    expect(forged).toEqual({ status: 200, body: 'success' });
    const unknown = await postSignedCallback({
      url: callbackUrl(stack.server.baseUrl, defaultToken, KNOWN_KEY_METHOD.code),
      gatewayNo: KNOWN_KEY_METHOD.gatewayNo,
      signKey: KNOWN_KEY_METHOD.signKey,
      type: 'transaction.success',
      data: { ...data, orderNo: `NO-SUCH-${randomUUID().slice(0, 8)}-1` },
    });
    expect(unknown).toEqual(forged);
    const after = await adminOrder(stack.admin, order.id);
    expect(after.state).toBe('ArrangingPayment');
    expect(after.payments).toHaveLength(0);

    // The genuine gateway result, through the method the attempt was made with, still pays it.
    await completeRedirect(started.url, 'success');
    const paid = await eventually(
      () => adminOrder(stack.admin, order.id),
      (o) => o.state === 'PaymentSettled',
    );
    expect(paid.payments.map((p) => p.state)).toEqual(['Settled']);
  });

  it('#4 a return signed with another method’s known key cannot settle the victim’s order', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const started = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (started.__typename !== 'GatewaykitPaymentRedirect') throw new Error(started.__typename);
    const gatewayOrder = stack.sandbox.order(started.orderNo);
    const query = signedReturnQuery(
      {
        code: '0000',
        gatewayNo: KNOWN_KEY_METHOD.gatewayNo,
        message: 'Success',
        orderAmount: gatewayOrder?.orderAmount ?? '',
        orderCurrency: gatewayOrder?.orderCurrency ?? '',
        orderInfo: 'Transaction Approved',
        orderNo: started.orderNo,
        orderStatus: 'success',
        tradeNo: 'T-forged-2',
      },
      KNOWN_KEY_METHOD.signKey,
    );
    const res = await fetch(
      `${stack.server.baseUrl}/payments/gatewaykit/return/${defaultToken}/${KNOWN_KEY_METHOD.code}?${query}`,
      { redirect: 'manual' },
    );
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('unknown order');
    const after = await adminOrder(stack.admin, order.id);
    expect(after.state).toBe('ArrangingPayment');
    expect(after.payments).toHaveLength(0);
  });

  it("attack: a return signed with the method's own key that names one order with another order's paid trade (what moving characters between orderInfo and orderNo gives when order codes end one another) pays nothing", async () => {
    const startPage = async () => {
      const shop = shopClient(stack);
      const order = await prepareOrder(shop);
      const page = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
      if (page.__typename !== 'GatewaykitPaymentRedirect') throw new Error(page.__typename);
      return { order, page };
    };
    const target = await startPage();
    const paid = await startPage();
    // The second order is really paid on its page (its return and callback pay it).
    await completeRedirect(paid.page.url, 'success');
    const trade = stack.sandbox.order(paid.page.orderNo);
    expect(trade?.orderStatus).toBe('success');
    const query = signedReturnQuery(
      {
        code: '0000',
        gatewayNo: DEMO_MERCHANTS.main.gatewayNo,
        message: 'Success',
        orderAmount: stack.sandbox.order(target.page.orderNo)?.orderAmount ?? '',
        orderCurrency: trade?.orderCurrency ?? '',
        orderInfo: 'Transaction Approved',
        orderNo: target.page.orderNo,
        orderStatus: 'success',
        tradeNo: trade?.tradeNo ?? '',
      },
      DEMO_MERCHANTS.main.signKey,
    );
    const res = await fetch(
      `${stack.server.baseUrl}/payments/gatewaykit/return/${defaultToken}/gatewaykit-hosted?${query}`,
      { redirect: 'manual' },
    );
    expect(res.status).toBe(401);
    const after = await adminOrder(stack.admin, target.order.id);
    expect(after.payments).toEqual([]);
    expect(after.state).toBe('ArrangingPayment');
    expect((await adminOrder(stack.admin, paid.order.id)).state).toBe('PaymentSettled');
  });

  it('#5 concurrent starts for one order (a double click, five at once) send one charge, and the order keeps its payment', async () => {
    // Several orders: on PostgreSQL a start that read the order before the first charge was recorded
    // once saved it after, which put it back in ArrangingPayment without its payment, and the next
    // start charged again (the order row lock in order-readiness.ts).
    for (let round = 0; round < 6; round++) {
      const shop = shopClient(stack);
      const order = await prepareOrder(shop);
      const pay = () =>
        startPayment(shop, { paymentMethodCode: 'gatewaykit-card', card: cardInput(CARDS.success) });
      const results = await Promise.all([pay(), pay(), pay(), pay(), pay()]);
      const answers = results.map((r) =>
        r.__typename === 'GatewaykitPaymentError' ? r.errorCode : r.__typename,
      );
      expect(gatewayRequests(stack.sandbox, order.code, 'confirmCharge')).toHaveLength(1);
      expect(answers.filter((a) => a === 'GatewaykitPaymentCompleted')).toHaveLength(1);
      // The others: blocked by the first charge, or told it paid the order. NO_ACTIVE_ORDER is Vendure's
      // answer to a start that reads the active order after the order was placed.
      expect(
        answers.filter(
          (a) => !['GatewaykitPaymentCompleted', 'GatewaykitPaymentPending', 'NO_ACTIVE_ORDER'].includes(a),
        ),
      ).toEqual([]);
      const paid = await adminOrder(stack.admin, order.id);
      expect(paid.state).toBe('PaymentSettled');
      expect(paid.payments.map((p) => p.state)).toEqual(['Settled']);
    }
  });

  /**
   * One order paid on a gateway page while its shopper, three times at once, keeps making `change`
   * until the page's success has been recorded. A page left open does not block order changes.
   */
  async function raceHostedSuccess(change: (shop: GraphqlClient, n: number) => Promise<unknown>) {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const hosted = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (hosted.__typename !== 'GatewaykitPaymentRedirect') throw new Error(hosted.__typename);
    let paid = false;
    const shopper = async () => {
      for (let n = 0; !paid; n++) await change(shop, n);
    };
    const shoppers = [shopper(), shopper(), shopper()];
    await completeRedirect(hosted.url, 'success');
    await new Promise((resolve) => setTimeout(resolve, 100));
    paid = true;
    await Promise.all(shoppers);
    return order;
  }

  it("#5 shop transitions racing a gateway page's success neither detach the payment nor reopen the order", async () => {
    // Vendure's transition saves the order it read (state and payments) unlocked: one read before the
    // success was recorded and saved after it put the order back in AddingItems without its payment,
    // money taken (stale-transition-guard-process.ts).
    for (let round = 0; round < 4; round++) {
      const order = await raceHostedSuccess((shop) =>
        shop.query('mutation { transitionOrderToState(state: "AddingItems") { __typename } }'),
      );
      const placed = await adminOrder(stack.admin, order.id);
      expect(placed.state).toBe('PaymentSettled');
      expect(placed.payments.map((p) => p.state)).toEqual(['Settled']);
      expect(paymentRequests(stack.sandbox, order.code)).toHaveLength(1);
    }
  });

  it("#5 address changes racing a gateway page's success do not reopen the placed order", async () => {
    // Vendure's address mutation saves the order it read, unlocked: one read before the success was
    // recorded and saved after set the order back to ArrangingPayment, active, no longer placed
    // (stale-order-save.subscriber.ts).
    for (let round = 0; round < 4; round++) {
      const order = await raceHostedSuccess((shop, n) =>
        shop
          .query(
            'mutation ($input: CreateAddressInput!) { setOrderShippingAddress(input: $input) { __typename } }',
            { input: { streetLine1: `${n} Analytical Way`, city: 'London', countryCode: 'GB' } },
          )
          // A change that read the order before the success was recorded is refused, and says why.
          .catch((error: Error) => {
            if (!error.message.includes('The order changed while this request changed it')) throw error;
          }),
      );
      const { order: placed } = await stack.admin.query<{
        order: {
          state: string;
          active: boolean;
          orderPlacedAt: string | null;
          payments: { state: string }[];
        };
      }>('query ($id: ID!) { order(id: $id) { state active orderPlacedAt payments { state } } }', {
        id: order.id,
      });
      expect(placed).toMatchObject({
        state: 'PaymentSettled',
        active: false,
        payments: [{ state: 'Settled' }],
      });
      expect(placed.orderPlacedAt).toBeTruthy();
    }
  });

  it('#5 a charge still in flight (`started`) or unanswered (`unknown`) blocks a second charge', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    stack.sandbox.addFault({ route: 'confirmCharge', kind: 'hang', times: 1 });
    const pay = () =>
      startPayment(shop, { paymentMethodCode: 'gatewaykit-card', card: cardInput(CARDS.success) });
    const first = pay();
    // The first charge has reached the gateway and hangs there: its attempt row is `started`.
    await eventually(
      async () => gatewayRequests(stack.sandbox, order.code, 'confirmCharge').length,
      (n) => n === 1,
    );
    const second = await pay();
    expect(second).toMatchObject({ __typename: 'GatewaykitPaymentPending', orderNo: `${order.code}-1` });
    // The hung charge times out: outcome unknown, the attempt still blocks.
    expect(await first).toMatchObject({ __typename: 'GatewaykitPaymentPending', orderNo: `${order.code}-1` });
    const third = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    expect(third).toMatchObject({ __typename: 'GatewaykitPaymentPending', orderNo: `${order.code}-1` });
    expect(paymentRequests(stack.sandbox, order.code)).toHaveLength(1);
    expect((await adminOrder(stack.admin, order.id)).payments).toHaveLength(0);
  });

  it('#5 an open hosted page (`redirect`) blocks a charge with another method', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const hosted = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    if (hosted.__typename !== 'GatewaykitPaymentRedirect') throw new Error(hosted.__typename);
    const card = await startPayment(shop, {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.success),
    });
    expect(card).toMatchObject({ __typename: 'GatewaykitPaymentPending', orderNo: hosted.orderNo });
    expect(gatewayRequests(stack.sandbox, order.code, 'confirmCharge')).toHaveLength(0);
    // Once the page is abandoned (a final answer), the order can be paid again.
    await completeRedirect(hosted.url, 'abandon');
    const retry = await startPayment(shop, {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.success),
    });
    expect(retry.__typename).toBe('GatewaykitPaymentCompleted');
    expect(paymentRequests(stack.sandbox, order.code)).toHaveLength(2);
  });

  it('#7 a free (0-priced) line does not break payment: sent with price 0', async () => {
    const variantId = await createVariant(stack.admin, 'Free sticker', 0);
    const shop = shopClient(stack);
    await shop.query(
      `mutation ($id: ID!) { addItemToOrder(productVariantId: $id, quantity: 2) { __typename } }`,
      {
        id: variantId,
      },
    );
    const order = await prepareOrder(shop);
    const result = await startPayment(shop, {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.success),
    });
    expect(result.__typename).toBe('GatewaykitPaymentCompleted');
    const [charge] = gatewayRequests(stack.sandbox, order.code, 'confirmCharge');
    expect(charge?.body).toContain('"goodsTitle":"Free sticker","goodsCount":"2","goodsPrice":"0"');
  });

  it('#7 a fractional-yen unit price is sent as its line total; an inexpressible total is refused before any attempt', async () => {
    const jpAdmin = stack.admin.withChannel(JP_CHANNEL_TOKEN);
    const variantId = await createVariant(jpAdmin, 'Odd yen', 12345);
    // 20 × ¥123.45 = ¥2469: the unit price has no yen form, the line total does.
    const whole = shopClient(stack, JP_CHANNEL_TOKEN);
    const wholeOrder = await prepareOrder(whole, { variantId, quantity: 20 });
    const started = await startPayment(whole, { paymentMethodCode: 'jp-gatewaykit-hosted' });
    expect(started.__typename).toBe('GatewaykitPaymentRedirect');
    const [page] = gatewayRequests(stack.sandbox, wholeOrder.code, 'checkoutPayment');
    expect(page?.body).toContain('"goodsTitle":"Odd yen × 20","goodsCount":"1","goodsPrice":"2469"');

    // 1 × ¥123.45: the order total itself has no yen form.
    const odd = shopClient(stack, JP_CHANNEL_TOKEN);
    const oddOrder = await prepareOrder(odd, { variantId, quantity: 1 });
    expect(oddOrder.totalWithTax % 100).not.toBe(0);
    const refused = await startPayment(odd, { paymentMethodCode: 'jp-gatewaykit-hosted' });
    expect(refused).toMatchObject({ __typename: 'GatewaykitPaymentError', errorCode: 'UNSUPPORTED_AMOUNT' });
    expect(gatewayRequests(stack.sandbox, oddOrder.code)).toHaveLength(0);
    // Nothing was stored: once the cart is fixed, the first attempt is number 1.
    await odd.query(`mutation { transitionOrderToState(state: "AddingItems") { __typename } }`);
    await odd.query(
      `mutation ($id: ID!) { addItemToOrder(productVariantId: $id, quantity: 19) { __typename } }`,
      {
        id: variantId,
      },
    );
    const fixed = await startPayment(odd, { paymentMethodCode: 'jp-gatewaykit-hosted' });
    expect(fixed).toMatchObject({ __typename: 'GatewaykitPaymentRedirect', orderNo: `${oddOrder.code}-1` });
  });

  it('#8 a method whose eligibility checker refuses the order is never charged', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const refused = await startPayment(shop, {
      paymentMethodCode: 'gatewaykit-card-small-orders',
      card: cardInput(CARDS.success),
    });
    expect(refused).toMatchObject({
      __typename: 'GatewaykitPaymentError',
      errorCode: 'INELIGIBLE_PAYMENT_METHOD',
      message: 'This payment method is only for smaller orders',
    });
    expect(gatewayRequests(stack.sandbox, order.code)).toHaveLength(0);
    const paid = await startPayment(shop, {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.success),
    });
    expect(paid.__typename).toBe('GatewaykitPaymentCompleted');
  });

  it('#9 input the gateway refuses before sending: ErrorResult naming the field, no Declined payment, order not blocked', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    await setShippingCity(shop, 'X'); // the gateway needs at least 2 characters
    const refused = await startPayment(shop, {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.success),
    });
    expect(refused).toMatchObject({ __typename: 'GatewaykitPaymentError', errorCode: 'INVALID_INPUT' });
    if (refused.__typename === 'GatewaykitPaymentError') expect(refused.message).toContain('address.city');
    expect(gatewayRequests(stack.sandbox, order.code)).toHaveLength(0);
    expect((await adminOrder(stack.admin, order.id)).payments).toHaveLength(0);

    await shop.query(`mutation { transitionOrderToState(state: "AddingItems") { __typename } }`);
    await setShippingCity(shop, 'London');
    const paid = await startPayment(shop, {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.success),
    });
    expect(paid.__typename).toBe('GatewaykitPaymentCompleted');
    const after = await adminOrder(stack.admin, order.id);
    expect(after.payments.map((p) => p.state)).toEqual(['Settled']);
  });

  it('boundary: malformed Shop API input is refused naming the field, before anything is stored or sent', async () => {
    const shop = shopClient(stack);
    const order = await prepareOrder(shop);
    const cases: { input: Record<string, unknown>; field: string }[] = [
      { input: { paymentMethodCode: '../gatewaykit-card' }, field: 'paymentMethodCode' },
      { input: { paymentMethodCode: 'x'.repeat(5000) }, field: 'paymentMethodCode' },
      {
        input: {
          paymentMethodCode: 'gatewaykit-card',
          card: { ...cardInput(CARDS.success), cardNo: '4242-4242' },
        },
        field: 'card.cardNo',
      },
      {
        input: {
          paymentMethodCode: 'gatewaykit-card',
          card: { ...cardInput(CARDS.success), cardSecurityCode: '12a' },
        },
        field: 'card.cardSecurityCode',
      },
      { input: { paymentMethodCode: 'gatewaykit-card', savedCardId: 'pm_1 OR 1=1' }, field: 'savedCardId' },
      // A card number with a letter glued on: an id's characters, not an id's shape (found by review).
      {
        input: { paymentMethodCode: 'gatewaykit-card', savedCardId: `${CARDS.success}x` },
        field: 'savedCardId',
      },
      {
        input: { paymentMethodCode: 'gatewaykit-card', elementPaymentMethodId: `pm_${CARDS.success}x` },
        field: 'elementPaymentMethodId',
      },
      {
        input: { paymentMethodCode: 'gatewaykit-card', savedCardId: 'pm_1', card: cardInput(CARDS.success) },
        field: 'card',
      },
      { input: { paymentMethodCode: 'gatewaykit-hosted', card: cardInput(CARDS.success) }, field: 'card' },
    ];
    for (const { input, field } of cases) {
      const result = await startPayment(shop, input as never);
      expect(result).toMatchObject({ __typename: 'GatewaykitPaymentError', errorCode: 'INVALID_INPUT' });
      if (result.__typename === 'GatewaykitPaymentError') {
        expect(result.message).toContain(field);
        expect(result.message).not.toContain(CARDS.success);
      }
    }
    expect(gatewayRequests(stack.sandbox, order.code)).toHaveLength(0);
    // No attempt row was stored: the first real attempt is number 1.
    const paid = await startPayment(shop, { paymentMethodCode: 'gatewaykit-hosted' });
    expect(paid).toMatchObject({ __typename: 'GatewaykitPaymentRedirect', orderNo: `${order.code}-1` });
  });

  it('boundary: saved-card mutations refuse bad fields with a user error, never a server error, and send nothing', async () => {
    const shop = shopClient(stack);
    await registerAndLogin(shop, uniqueEmail('boundary'));
    const before = stack.sandbox.requests().length;
    const base = {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.success),
      line1: '1 Analytical Way',
      city: 'London',
      countryCode: 'GB',
    };
    const cases: { input: Record<string, unknown>; field: string }[] = [
      { input: { ...base, countryCode: 'GBR' }, field: 'countryCode' },
      { input: { ...base, line1: `card ${CARDS.success.replace(/(\d{4})/g, '$1 ')}` }, field: 'line1' },
      { input: { ...base, city: 'x'.repeat(10_000) }, field: 'city' },
      { input: { ...base, card: { ...base.card, cardExpireYear: '27' } }, field: 'card.cardExpireYear' },
      { input: { ...base, postalCode: 'N1\u0000' }, field: 'postalCode' },
    ];
    for (const { input, field } of cases) {
      const res = await rawGraphql(shop, SAVE_CARD, { input });
      expect(isServerFailure(res)).toBe(false);
      expect(res.body.errors?.[0]?.message).toContain(field);
      expect(JSON.stringify(res.body)).not.toContain(CARDS.success);
    }
    const list = await rawGraphql(
      shop,
      `query ($c: String!) { gatewaykitSavedCards(paymentMethodCode: $c) { id } }`,
      {
        c: 'no such method',
      },
    );
    expect(isServerFailure(list)).toBe(false);
    expect(list.body.errors?.[0]?.message).toContain('paymentMethodCode');
    const unknownMethod = await rawGraphql(
      shop,
      `query ($c: String!) { gatewaykitSavedCards(paymentMethodCode: $c) { id } }`,
      { c: 'no-such-method' },
    );
    expect(isServerFailure(unknownMethod)).toBe(false);
    expect(unknownMethod.body.errors?.length).toBe(1);
    const remove = await rawGraphql(
      shop,
      `mutation ($id: String!) { gatewaykitRemoveSavedCard(paymentMethodCode: "gatewaykit-card", id: $id) }`,
      { id: '<script>' },
    );
    expect(isServerFailure(remove)).toBe(false);
    expect(remove.body.errors?.[0]?.message).toContain('id');
    expect(
      stack.sandbox
        .requests()
        .slice(before)
        .filter((r) => r.method !== 'GET'),
    ).toHaveLength(0);
  });

  it('a completed payment answers only the payer’s own order: no client-chosen order id exists, and an injected one is refused before any charge', async () => {
    // The answer's order is read from the checkout's own order id (GatewaykitPaymentCompletedResolver);
    // nothing in the schema lets a client name it.
    const { __type } = await shopClient(stack).query<{ __type: { fields: { name: string }[] } }>(
      `{ __type(name: "GatewaykitPaymentCompleted") { fields { name } } }`,
    );
    expect(__type.fields.map((field) => field.name)).toEqual(['order']);

    const victim = shopClient(stack);
    const victimOrder = await prepareOrder(victim);
    const attacker = shopClient(stack);
    const attackerOrder = await prepareOrder(attacker);
    const sent = () => stack.sandbox.requests().filter((r) => r.method !== 'GET').length;
    const before = sent();
    const injected = await rawGraphql(
      attacker,
      `mutation ($input: GatewaykitStartPaymentInput!) { gatewaykitStartPayment(input: $input) { __typename } }`,
      {
        input: {
          paymentMethodCode: 'gatewaykit-card',
          card: cardInput(CARDS.success),
          orderId: victimOrder.id,
        },
      },
    );
    expect(isServerFailure(injected)).toBe(false);
    expect(injected.body.data?.gatewaykitStartPayment).toBeFalsy();
    expect(sent()).toBe(before);

    const paid = await startPayment(attacker, {
      paymentMethodCode: 'gatewaykit-card',
      card: cardInput(CARDS.success),
    });
    if (paid.__typename !== 'GatewaykitPaymentCompleted') throw new Error(`not paid: ${paid.__typename}`);
    expect(paid.order.id).toBe(attackerOrder.id);
    expect(paid.order.code).toBe(attackerOrder.code);
    expect((await adminOrder(stack.admin, victimOrder.id)).state).toBe('AddingItems');
  });

  it('saved cards: another customer’s card id and a guest with a card id are refused, nothing is charged', async () => {
    const owner = shopClient(stack);
    await registerAndLogin(owner, uniqueEmail('owner'));
    const saved = await owner.query<{ gatewaykitSaveCard: { id: string } }>(SAVE_CARD, {
      input: {
        paymentMethodCode: 'gatewaykit-card',
        card: cardInput(CARDS.success),
        line1: '1 Analytical Way',
        city: 'London',
        countryCode: 'GB',
        postalCode: '', // what storefronts send for an empty field
      },
    });
    const cardId = saved.gatewaykitSaveCard.id;

    const other = shopClient(stack);
    await registerAndLogin(other, uniqueEmail('other'));
    const otherOrder = await prepareOrder(other, { loggedIn: true });
    const stolen = await startPayment(other, { paymentMethodCode: 'gatewaykit-card', savedCardId: cardId });
    expect(stolen).toMatchObject({ __typename: 'GatewaykitPaymentError', errorCode: 'CARD_NOT_FOUND' });

    const guest = shopClient(stack);
    const guestOrder = await prepareOrder(guest);
    const asGuest = await startPayment(guest, { paymentMethodCode: 'gatewaykit-card', savedCardId: cardId });
    expect(asGuest).toMatchObject({ __typename: 'GatewaykitPaymentError', errorCode: 'NOT_LOGGED_IN' });

    for (const order of [otherOrder, guestOrder]) {
      expect(paymentRequests(stack.sandbox, order.code)).toHaveLength(0);
      expect((await adminOrder(stack.admin, order.id)).payments).toHaveLength(0);
    }
  });

  async function setShippingCity(shop: GraphqlClient, city: string): Promise<void> {
    await shop.query(
      `mutation ($input: CreateAddressInput!) { setOrderShippingAddress(input: $input) { __typename } }`,
      {
        input: {
          fullName: 'Ada Lovelace',
          streetLine1: '1 Analytical Way',
          city,
          postalCode: 'N1 1AA',
          countryCode: 'GB',
        },
      },
    );
  }
});

/** A product with one variant at `price` (minor units) in the admin client's channel. */
async function createVariant(admin: GraphqlClient, name: string, price: number): Promise<string> {
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${randomUUID().slice(0, 8)}`;
  const { createProduct } = await admin.query<{ createProduct: { id: string } }>(
    `mutation ($input: CreateProductInput!) { createProduct(input: $input) { id } }`,
    { input: { translations: [{ languageCode: 'en', name, slug, description: '' }] } },
  );
  const { createProductVariants } = await admin.query<{ createProductVariants: { id: string }[] }>(
    `mutation ($input: [CreateProductVariantInput!]!) { createProductVariants(input: $input) { id } }`,
    {
      input: [
        {
          productId: createProduct.id,
          sku: slug,
          price,
          stockOnHand: 1000,
          translations: [{ languageCode: 'en', name }],
        },
      ],
    },
  );
  const id = createProductVariants[0]?.id;
  if (!id) throw new Error('variant not created');
  return id;
}
