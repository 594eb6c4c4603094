import { GatewayClient } from '@gatewaykit/core';
import { createElementPaymentMethod } from '@gatewaykit/sandbox';
import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { DEMO_MERCHANTS } from '../../vendure-store/src/gateways';
import { MEDUSA_MERCHANT } from '../server/stack';
import { adminOrder } from './support/admin';
import { useBrowser } from './support/browser';
import { CARD_METHOD, type StoreName } from './support/cards';
import {
  CARDS,
  elementReady,
  guestOnPaymentStep,
  placedOrderReference,
  screenshot,
  typeCardInElement,
} from './support/shopper';

const browser = useBrowser();

// biome-ignore lint/suspicious/noExplicitAny: sandbox and store JSON, read field by field.
type Json = Record<string, any>;

/** Counts of what the sandbox holds: payment methods made and charges sent (orders). */
async function sandboxCounts(): Promise<{ methods: number; orders: number }> {
  const state = (await (await fetch(`${inject('sandboxUrl')}/_sandbox/state`)).json()) as Json;
  return { methods: state.paymentMethods.length, orders: state.orders.length };
}

async function moveSandboxClock(body: { advanceMs?: number; offsetMs?: number }): Promise<number> {
  const response = await fetch(`${inject('sandboxUrl')}/_sandbox/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`sandbox clock: ${response.status}`);
  return ((await response.json()) as { offsetMs: number }).offsetMs;
}

/** Every request the page sends to a store API, with its body: none may carry the card number. */
function storeRequests(page: Page): string[] {
  const seen: string[] = [];
  const apis = [`${inject('storefrontUrl')}/medusa-api`, `${inject('storefrontUrl')}/vendure-api`];
  page.on('request', (request) => {
    if (apis.some((api) => request.url().startsWith(api)))
      seen.push(`${request.url()} ${request.postData() ?? ''}`);
  });
  return seen;
}

describe.each(['medusa', 'vendure'] as const)('%s: the gateway card element', (store) => {
  it('a guest pays with the element: the store never sees the number; a token older than 25 minutes is renewed first', async () => {
    const { page, email } = await guestOnPaymentStep(browser(), store, 'element');
    const requests = storeRequests(page);
    // The page's clock is playwright's, so 26 minutes can pass at once; the reload puts it in place.
    await page.clock.install();
    await page.reload();
    const minted: string[] = [];
    page.on('response', (response) => {
      if (!/\/store\/gatewaykit\/card-element|\/vendure-api\/shop-api/.test(response.url())) return;
      response.json().then(
        (body: Json) => {
          const token = body.session_token ?? body.data?.gatewaykitCardElement?.sessionToken;
          if (typeof token === 'string') minted.push(token);
        },
        () => undefined,
      );
    });
    const used: string[] = [];
    page.context().on('request', (request) => {
      if (request.url().includes('/V2022-03/element/payment_methods'))
        used.push(String((JSON.parse(request.postData() ?? '{}') as Json).sessionToken));
    });
    await typeCardInElement(page, CARDS.success);
    await screenshot(page, `${store}-card-element`);
    await expect.poll(() => minted.length).toBe(1);
    await page.clock.fastForward('26:00');
    await page.getByTestId('pay').click();
    const reference = await placedOrderReference(page);

    const order = await adminOrder(store, reference);
    expect(order.email).toBe(email);
    expect(order.paid).toBe(true);
    expect(order.method).toBe(CARD_METHOD[store]);
    // The store got a payment method id (pm_…), never the card number.
    const sent = requests.join('\n');
    expect(sent).toMatch(/pm_\d+/);
    expect(sent).not.toContain(CARDS.success);
    // A second token was asked for and the element made the method with it, not with the old one.
    expect(minted).toHaveLength(2);
    expect(used).toEqual([minted[1]]);
    await page.context().close();
  });

  it('an expired token: the element says so, nothing is made or charged, the shopper stays on the page', async () => {
    const { page } = await guestOnPaymentStep(browser(), store, 'expired');
    await page.getByTestId('pay-card').check();
    await elementReady(page);
    const before = await sandboxCounts();
    // The gateway's clock moves past the token's 30 minutes; the page's own clock does not, so it
    // still trusts its token and the gateway's refusal is what the shopper sees.
    const offset = (await (await fetch(`${inject('sandboxUrl')}/_sandbox/clock`)).json()) as {
      offsetMs: number;
    };
    await moveSandboxClock({ advanceMs: 31 * 60_000 });
    try {
      await typeCardInElement(page, CARDS.success);
      await page.getByTestId('pay').click();
      const failure = page.getByTestId('card-element-error');
      await failure.getByText(/expired/i).waitFor();
      expect(new URL(page.url()).pathname).toBe('/checkout/payment');
      expect(await page.getByTestId('order-placed').count()).toBe(0);
      expect(await sandboxCounts()).toEqual(before);
    } finally {
      // Callbacks carry the sandbox's time and stores refuse ones far from their own (shared stack).
      await moveSandboxClock({ offsetMs: offset.offsetMs });
    }
    await page.context().close();
  });
});

/**
 * A card element method made at the sandbox for `merchant`, attached to nobody (the gateway's record of
 * a method names no owner either way: docs/card-element.md#who-owns-a-card).
 */
async function elementCard(merchant: { gatewayNo: string; signKey: string }): Promise<string> {
  const client = new GatewayClient({ ...merchant, baseUrl: inject('sandboxUrl') });
  try {
    const { sessionToken } = await client.sessionTokens.create();
    const { customerPaymentMethodId } = await createElementPaymentMethod(inject('sandboxUrl'), sessionToken, {
      card: {
        cardNo: CARDS.success,
        cardExpireMonth: '12',
        cardExpireYear: String(new Date().getFullYear() + 2),
        cardSecurityCode: '123',
      },
    });
    return customerPaymentMethodId;
  } finally {
    await client.close();
  }
}

/** Posts a payment method id straight to the store as the shopper's checkout would; the store's answer. */
async function chargeStraight(store: StoreName, page: Page, methodId: string): Promise<Json> {
  if (store === 'medusa') {
    const cartId = await page.evaluate(() => localStorage.getItem('gatewaykit.medusa.cart'));
    const headers = {
      'content-type': 'application/json',
      'x-publishable-api-key': inject('publishableKey'),
    };
    const base = inject('medusaUrl');
    const collection = (await (
      await fetch(`${base}/store/payment-collections`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ cart_id: cartId }),
      })
    ).json()) as Json;
    const session = await fetch(
      `${base}/store/payment-collections/${collection.payment_collection.id}/payment-sessions`,
      {
        method: 'POST',
        headers,
        body: JSON.stringify({
          provider_id: CARD_METHOD.medusa,
          data: { customerPaymentMethodId: methodId },
        }),
      },
    );
    const sessionAnswer = (await session.json()) as Json;
    if (!session.ok) return { refusedAt: 'session', status: session.status, ...sessionAnswer };
    const complete = await fetch(`${base}/store/carts/${cartId}/complete`, { method: 'POST', headers });
    return {
      refusedAt: complete.ok ? 'complete' : 'complete-error',
      status: complete.status,
      ...((await complete.json()) as Json),
    };
  }
  const token = await page.evaluate(() => localStorage.getItem('gatewaykit.vendure.token'));
  const response = await fetch(`${inject('vendureUrl')}/shop-api`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      query: `mutation ($input: GatewaykitStartPaymentInput!) { gatewaykitStartPayment(input: $input) {
        __typename ... on GatewaykitPaymentError { errorCode message } } }`,
      variables: { input: { paymentMethodCode: CARD_METHOD.vendure, elementPaymentMethodId: methodId } },
    }),
  });
  return ((await response.json()) as Json).data?.gatewaykitStartPayment ?? {};
}

describe.each(['medusa', 'vendure'] as const)('%s: hostile payment method ids', (store) => {
  it("a made-up id and another shopper's card posted straight to the store API are refused, nothing charged", async () => {
    // Another shopper's card: named first, and paid with, at their own checkout.
    const theirs = await elementCard(store === 'medusa' ? MEDUSA_MERCHANT : DEMO_MERCHANTS.main);
    const { page: theirPage } = await guestOnPaymentStep(browser(), store, 'victim');
    expect(JSON.stringify(await chargeStraight(store, theirPage, theirs))).toMatch(
      /"type":"order"|GatewaykitPaymentCompleted/,
    );
    await theirPage.context().close();

    const { page } = await guestOnPaymentStep(browser(), store, 'forged');
    const before = await sandboxCounts();
    for (const [methodId, code] of [
      ['pm_1234567890123456789', /CARD_NOT_FOUND|not found|no such/i],
      [theirs, /CARD_NOT_YOURS|another checkout/i],
    ] as const) {
      const answer = await chargeStraight(store, page, methodId);
      expect(answer.type).not.toBe('order');
      if (store === 'vendure') expect(answer.__typename).toBe('GatewaykitPaymentError');
      expect(JSON.stringify(answer)).toMatch(code);
    }
    // Nothing was sent to be charged; the cart is still open and pays normally afterwards.
    expect((await sandboxCounts()).orders).toBe(before.orders);
    await page.reload();
    await typeCardInElement(page, CARDS.success);
    await page.getByTestId('pay').click();
    const order = await adminOrder(store, await placedOrderReference(page));
    expect(order.paid).toBe(true);
    await page.context().close();
  });
});
