import { type GatewayClient, GatewayConnectionError } from '@gatewaykit/core';
import { ContainerRegistrationKeys } from '@medusajs/framework/utils';
import { describe, expect, it, vi } from 'vitest';
import { POST as saveCardRoute } from '../src/api/store/gatewaykit/payment-methods/route';
import { CardElementUnavailableError, issueCardElement } from '../src/lib/card-element';
import { elementCardShopper } from '../src/lib/element-card-bindings';
import type { GatewaykitAccount } from '../src/lib/resolve-options';
import { BUYER, cardServiceWith, loggedIn, OPTIONS } from './fake-provider';

const answer = (fields: Record<string, string>) => async (body: Record<string, unknown>) => ({
  orderNo: body.orderNo,
  tradeNo: 'T1',
  orderAmount: body.orderAmount,
  orderCurrency: body.orderCurrency,
  maskCardNo: '424242***4242',
  ...fields,
});
const SUCCESS = answer({ orderStatus: 'success', orderInfo: 'Approved' });

const initiate = (data: Record<string, unknown>, context?: unknown) => ({
  amount: 60,
  currency_code: 'usd',
  data: { session_id: 'payses_E1', buyer: BUYER, ...data },
  ...(context ? { context: context as never } : {}),
});

describe('card session data from the storefront', () => {
  it('saveCard is a boolean and nothing else', async () => {
    const { service, retrieve } = cardServiceWith(SUCCESS);
    for (const saveCard of ['yes', 1, 'true', null]) {
      await expect(
        service.initiatePayment(
          initiate({ customerPaymentMethodId: 'pm_element_1', saveCard }, loggedIn('cus_1')),
        ),
      ).rejects.toThrow(/data\.saveCard: must be true or false/);
    }
    expect(retrieve).not.toHaveBeenCalled();
  });

  it('a card number in customerPaymentMethodId is refused before any lookup', async () => {
    const { service, retrieve } = cardServiceWith(SUCCESS);
    for (const pan of ['4242424242424242', '4111-1111-1111-1111', '4111_1111_1111_1111']) {
      await expect(service.initiatePayment(initiate({ customerPaymentMethodId: pan }))).rejects.toThrow(
        /data\.customerPaymentMethodId: looks like a card number/,
      );
    }
    expect(retrieve).not.toHaveBeenCalled();
  });

  it('saveCard as a guest is refused naming data.saveCard, before the gateway is asked', async () => {
    const { service, retrieve, confirm } = cardServiceWith(SUCCESS);
    await expect(
      service.initiatePayment(initiate({ customerPaymentMethodId: 'pm_element_1', saveCard: true })),
    ).rejects.toMatchObject({
      type: 'not_allowed',
      message: expect.stringMatching(/^data\.saveCard: .*logged-in/),
    });
    expect(retrieve).not.toHaveBeenCalled();
    expect(confirm).not.toHaveBeenCalled();
  });

  it('saveCard without a payment method is refused naming data.saveCard', async () => {
    const { service } = cardServiceWith(SUCCESS);
    await expect(service.initiatePayment(initiate({ saveCard: true }, loggedIn('cus_1')))).rejects.toThrow(
      /data\.saveCard: needs data\.customerPaymentMethodId/,
    );
  });
});

describe("element cards: core's card rule decides", () => {
  it('a guest pays with an element card: no customerId on the charge, nothing attached', async () => {
    const { service, confirm, attach } = cardServiceWith(SUCCESS);
    const { data } = await service.initiatePayment(initiate({ customerPaymentMethodId: 'pm_element_1' }));
    expect(data).toMatchObject({ customerPaymentMethodId: 'pm_element_1', gatewayCustomerId: undefined });
    const { status } = await service.authorizePayment({ data });
    expect(status).toBe('captured');
    expect(confirm).toHaveBeenCalledTimes(1);
    expect(confirm.mock.calls[0]![0]).toMatchObject({ customerPaymentMethodId: 'pm_element_1' });
    expect(confirm.mock.calls[0]![0]).not.toHaveProperty('customerId');
    expect(attach).not.toHaveBeenCalled();
  });

  it('a logged-in customer who does not save: the charge never binds the card to them', async () => {
    const { service, confirm, attach } = cardServiceWith(SUCCESS);
    const { data } = await service.initiatePayment(
      initiate({ customerPaymentMethodId: 'pm_element_1' }, loggedIn('cus_1')),
    );
    expect(data).toMatchObject({ gatewayCustomerId: 'cus_1' });
    expect((await service.authorizePayment({ data })).status).toBe('captured');
    expect(confirm.mock.calls[0]![0]).not.toHaveProperty('customerId');
    expect(attach).not.toHaveBeenCalled();
  });

  it('saveCard: the charge carries the customer and the card is attached after a direct success', async () => {
    const { service, confirm, attach } = cardServiceWith(SUCCESS);
    const { data } = await service.initiatePayment(
      initiate({ customerPaymentMethodId: 'pm_element_1', saveCard: true }, loggedIn('cus_1')),
    );
    const result = await service.authorizePayment({ data });
    expect(result.status).toBe('captured');
    expect(confirm.mock.calls[0]![0]).toMatchObject({
      customerPaymentMethodId: 'pm_element_1',
      customerId: 'cus_1',
    });
    expect(attach).toHaveBeenCalledWith('pm_element_1', 'cus_1');
    expect(result.data).toMatchObject({ saveCard: true, cardKept: 'attached' });
  });

  it('saveCard with 3DS: the charge carries the customer (which binds it); no attach before the result', async () => {
    const { service, confirm, attach } = cardServiceWith(
      answer({ orderStatus: 'pending', redirectUrl: 'http://gateway.test/3ds/T1' }),
    );
    const { data } = await service.initiatePayment(
      initiate({ customerPaymentMethodId: 'pm_element_1', saveCard: true }, loggedIn('cus_1')),
    );
    const result = await service.authorizePayment({ data });
    expect(result.status).toBe('requires_more');
    expect(confirm.mock.calls[0]![0]).toMatchObject({ customerId: 'cus_1' });
    expect(attach).not.toHaveBeenCalled();
    expect(result.data).toMatchObject({ cardKept: 'not-paid' });
  });

  it('a declined saveCard payment attaches nothing', async () => {
    const { service, attach } = cardServiceWith(answer({ orderStatus: 'fail', orderInfo: 'Declined' }));
    const { data } = await service.initiatePayment(
      initiate({ customerPaymentMethodId: 'pm_element_1', saveCard: true }, loggedIn('cus_1')),
    );
    expect((await service.authorizePayment({ data })).status).toBe('error');
    expect(attach).not.toHaveBeenCalled();
  });

  it('a failed attach leaves the payment paid and says the card was not kept', async () => {
    const { service, attach, logger } = cardServiceWith(SUCCESS);
    attach.mockRejectedValueOnce(new GatewayConnectionError('down'));
    const { data } = await service.initiatePayment(
      initiate({ customerPaymentMethodId: 'pm_element_1', saveCard: true }, loggedIn('cus_1')),
    );
    const result = await service.authorizePayment({ data });
    expect(result.status).toBe('captured');
    expect(result.data).toMatchObject({ cardKept: 'failed', outcome: { status: 'succeeded' } });
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('not in the saved cards'));
  });

  it("the customer's own saved card is charged as theirs", async () => {
    const { service, confirm } = cardServiceWith(SUCCESS);
    const { data } = await service.initiatePayment(
      initiate({ customerPaymentMethodId: 'pm_1' }, loggedIn('cus_1')),
    );
    expect((await service.authorizePayment({ data })).status).toBe('captured');
    expect(confirm.mock.calls[0]![0]).toMatchObject({ customerPaymentMethodId: 'pm_1', customerId: 'cus_1' });
  });

  it("another customer's card is refused for guests and customers; nothing is charged", async () => {
    const { service, confirm } = cardServiceWith(SUCCESS);
    for (const context of [undefined, loggedIn('cus_1')]) {
      await expect(
        service.initiatePayment(initiate({ customerPaymentMethodId: 'pm_2' }, context)),
      ).rejects.toMatchObject({
        type: 'not_allowed',
        message: 'data.customerPaymentMethodId: this card belongs to another customer',
      });
    }
    expect(confirm).not.toHaveBeenCalled();
  });

  it('a fresh element card is charged only for the checkout that first named it; another is refused, saving too', async () => {
    const { service, confirm, bindings } = cardServiceWith(SUCCESS);
    const first = await service.initiatePayment(initiate({ customerPaymentMethodId: 'pm_element_1' }));
    for (const [data, context] of [
      [{ customerPaymentMethodId: 'pm_element_1' }, undefined],
      [{ customerPaymentMethodId: 'pm_element_1', saveCard: true }, loggedIn('cus_2')],
    ] as const) {
      await expect(
        service.initiatePayment({
          ...initiate(data, context),
          data: { ...initiate(data).data, session_id: 'payses_X' },
        }),
      ).rejects.toMatchObject({
        type: 'not_allowed',
        message:
          'data.customerPaymentMethodId: this card was entered for another checkout; enter it again here',
      });
    }
    expect([...bindings]).toEqual([
      ['pm_element_1', expect.stringMatching(/^payses_E1 by guest:[0-9a-f]{32}$/)],
    ]);
    // The first checkout still pays with it (asked again right before the charge).
    const paid = await service.authorizePayment({ data: first.data } as never);
    expect(paid.status).toBe('captured');
    expect(confirm).toHaveBeenCalledTimes(1);
  });

  it('a guest names a card as where the goods go (email and shipping address), whatever order the stored keys come back in', () => {
    const shipping = { line1: '1 Test Street', city: 'Austin', country: 'US', postalCode: '73301' };
    const guest = elementCardShopper({ buyer: { ...BUYER, shippingAddress: shipping } });
    expect(guest).toMatch(/^guest:[0-9a-f]{32}$/);
    // As a jsonb column gives it back: the same keys in another order.
    const reordered = { postalCode: '73301', country: 'US', city: 'Austin', line1: '1 Test Street' };
    expect(elementCardShopper({ buyer: { ...BUYER, shippingAddress: reordered } })).toBe(guest);
    expect(
      elementCardShopper({ buyer: { ...BUYER, shippingAddress: { ...shipping, line1: '9 Thief Lane' } } }),
    ).not.toBe(guest);
    expect(
      elementCardShopper({ buyer: { ...BUYER, email: 'x@example.com', shippingAddress: shipping } }),
    ).not.toBe(guest);
    expect(elementCardShopper({ medusaCustomerId: 'cus_1', buyer: BUYER })).toBe('cus_1');
  });

  it("attack: whoever holds a guest's cart id, still a guest, gives the cart their own address or email and names the guest's card in a new session: refused; the guest names it again and pays (found by review)", async () => {
    const { service, confirm } = cardServiceWith(SUCCESS);
    await service.initiatePayment(initiate({ customerPaymentMethodId: 'pm_element_1' }));
    const shipToThief = { ...BUYER, shippingAddress: { line1: '9 Thief Lane', city: 'Reno', country: 'US' } };
    for (const buyer of [shipToThief, { ...BUYER, email: 'thief@example.com' }]) {
      await expect(
        service.initiatePayment(initiate({ customerPaymentMethodId: 'pm_element_1', buyer })),
      ).rejects.toMatchObject({
        type: 'not_allowed',
        message:
          'data.customerPaymentMethodId: this card was entered for another checkout; enter it again here',
      });
    }
    expect(confirm).not.toHaveBeenCalled();
    // The guest, same email and address, names it again in a replaced session and pays.
    const again = await service.initiatePayment(initiate({ customerPaymentMethodId: 'pm_element_1' }));
    expect((await service.authorizePayment({ data: again.data } as never)).status).toBe('captured');
  });

  it("attack: whoever holds a guest's cart id logs in and names the guest's fresh card on the same collection to save it: refused, nothing attached", async () => {
    const { service, confirm, attach, bindings } = cardServiceWith(SUCCESS);
    const guest = await service.initiatePayment(initiate({ customerPaymentMethodId: 'pm_element_1' }));
    // Same collection (the fake's session stands for it), another shopper.
    for (const saveCard of [true, false]) {
      await expect(
        service.initiatePayment(
          initiate({ customerPaymentMethodId: 'pm_element_1', saveCard }, loggedIn('cus_2')),
        ),
      ).rejects.toMatchObject({
        type: 'not_allowed',
        message:
          'data.customerPaymentMethodId: this card was entered for another checkout; enter it again here',
      });
    }
    // Nor right before the charge, with the session data of such a session.
    await expect(
      service.authorizePayment({
        data: { ...guest.data, medusaCustomerId: 'medusa_cus_2', gatewayCustomerId: 'cus_2', saveCard: true },
      } as never),
    ).rejects.toMatchObject({ type: 'not_allowed' });
    expect(bindings.get('pm_element_1')).toMatch(/^payses_E1 by guest:[0-9a-f]{32}$/);
    expect(confirm).not.toHaveBeenCalled();
    expect(attach).not.toHaveBeenCalled();
  });

  it("a method the gateway does not know for this merchant (another merchant's token) is refused", async () => {
    const { service, confirm } = cardServiceWith(SUCCESS);
    await expect(
      service.initiatePayment(initiate({ customerPaymentMethodId: 'pm_of_another_merchant' })),
    ).rejects.toMatchObject({
      type: 'not_allowed',
      message: expect.stringMatching(/^data\.customerPaymentMethodId: no such card/),
    });
    expect(confirm).not.toHaveBeenCalled();
  });

  it('asked again right before the charge: a card attached to someone else meanwhile is not charged', async () => {
    const { service, confirm, retrieve } = cardServiceWith(SUCCESS);
    const { data } = await service.initiatePayment(initiate({ customerPaymentMethodId: 'pm_element_2' }));
    retrieve.mockResolvedValueOnce({ customerPaymentMethodId: 'pm_element_2', customerId: 'cus_2' } as never);
    await expect(service.authorizePayment({ data })).rejects.toThrow(
      /data\.customerPaymentMethodId: this card belongs to another customer/,
    );
    expect(confirm).not.toHaveBeenCalled();
  });

  it('a gateway that cannot be asked refuses the session; nothing is charged', async () => {
    const { service, confirm, retrieve } = cardServiceWith(SUCCESS);
    retrieve.mockRejectedValueOnce(new GatewayConnectionError('connection refused'));
    await expect(
      service.initiatePayment(initiate({ customerPaymentMethodId: 'pm_element_1' })),
    ).rejects.toThrow(/could not be checked at the gateway \(nothing was charged\)/);
    expect(confirm).not.toHaveBeenCalled();
  });

  it('a session without a method says how to pay', async () => {
    const { service } = cardServiceWith(SUCCESS);
    const { data } = await service.initiatePayment(initiate({}));
    await expect(service.authorizePayment({ data })).rejects.toThrow(/card element's payment method/);
  });
});

/** A scope with medusa-config (two gatewaykit entries) and a query over the given carts and regions. */
function scopeWith(carts: Record<string, unknown>[], regions: Record<string, unknown>[]) {
  const graph = vi.fn(async ({ entity, filters }: { entity: string; filters: { id: string } }) => ({
    data: (entity === 'cart' ? carts : regions).filter((row) => row.id === filters.id),
  }));
  const entry = (id: string, gatewayNo: string) => ({
    resolve: '@gatewaykit/medusa-provider/providers/gatewaykit',
    id,
    options: { ...OPTIONS, gatewayNo },
  });
  const resolve = (key: string) => {
    if (key === ContainerRegistrationKeys.CONFIG_MODULE) {
      return {
        modules: [{ options: { providers: [entry('gatewaykit', '11111111'), entry('second', '22222222')] } }],
      };
    }
    if (key === ContainerRegistrationKeys.QUERY) return { graph };
    throw new Error(`resolved ${key}`);
  };
  return { scope: { resolve } as never, graph };
}

const REGIONS = [
  { id: 'reg_1', payment_providers: [{ id: 'pp_gatewaykit_gatewaykit', is_enabled: true }] },
  { id: 'reg_2', payment_providers: [{ id: 'pp_gatewaykit_second', is_enabled: true }] },
];
const CARTS = [
  { id: 'cart_OPEN1', region_id: 'reg_1', completed_at: null },
  { id: 'cart_OPEN2', region_id: 'reg_2', completed_at: null },
  { id: 'cart_DONE', region_id: 'reg_1', completed_at: '2026-01-01T00:00:00Z' },
];

/** Fake clients per merchant: each mints tokens named after its gatewayNo. */
function clients() {
  const created: string[] = [];
  const clientOf = (account: GatewaykitAccount) =>
    ({
      sessionTokens: {
        create: async () => {
          created.push(account.gatewayNo);
          return { sessionToken: `st_${account.gatewayNo}` };
        },
      },
      elementScriptUrl: `http://gateway.test/${account.gatewayNo}/static/v3/js/AsiabillPayment.min.js`,
    }) as unknown as GatewayClient;
  return { created, clientOf };
}

describe('POST /store/gatewaykit/card-element', () => {
  const now = () => Date.parse('2026-11-24T12:00:00Z');

  it("answers the token of the provider entry's own merchant, the SDK URL and the expiry; never the sign key", async () => {
    const { scope } = scopeWith(CARTS, REGIONS);
    const { created, clientOf } = clients();
    const first = await issueCardElement(
      scope,
      { cart_id: 'cart_OPEN1', provider_id: 'pp_gatewaykit_gatewaykit' },
      { now, clientOf },
    );
    expect(first).toEqual({
      session_token: 'st_11111111',
      script_url: 'http://gateway.test/11111111/static/v3/js/AsiabillPayment.min.js',
      expires_at: new Date(now() + 30 * 60_000).toISOString(),
    });
    expect(first.expires_at).toBe('2026-11-24T12:30:00.000Z');
    const second = await issueCardElement(
      scope,
      { cart_id: 'cart_OPEN2', provider_id: 'pp_gatewaykit_second' },
      { now, clientOf },
    );
    expect(second.session_token).toBe('st_22222222');
    expect(created).toEqual(['11111111', '22222222']);
    expect(JSON.stringify([first, second])).not.toContain(OPTIONS.signKey);
  });

  const refusals: [string, unknown, RegExp, string][] = [
    [
      'an unknown field',
      { cart_id: 'cart_OPEN1', provider_id: 'pp_gatewaykit_gatewaykit', amount: 1 },
      /body\.amount: is not accepted/,
      'invalid_data',
    ],
    ['no cart', { provider_id: 'pp_gatewaykit_gatewaykit' }, /body\.cart_id: is required/, 'invalid_data'],
    ['no body', undefined, /body\.cart_id: is required.*body\.provider_id: is required/, 'invalid_data'],
    [
      'a cart id that is not one',
      { cart_id: "cart_1' OR 1=1", provider_id: 'pp_gatewaykit_gatewaykit' },
      /body\.cart_id: must be a cart id/,
      'invalid_data',
    ],
    [
      'a hosted provider',
      { cart_id: 'cart_OPEN1', provider_id: 'pp_gatewaykit-hosted_gatewaykit' },
      /body\.provider_id: not a gatewaykit card provider/,
      'invalid_data',
    ],
    [
      "another plugin's provider",
      { cart_id: 'cart_OPEN1', provider_id: 'pp_system_default' },
      /body\.provider_id: not a gatewaykit card provider/,
      'invalid_data',
    ],
    [
      "another region's provider",
      { cart_id: 'cart_OPEN1', provider_id: 'pp_gatewaykit_second' },
      /body\.provider_id: pp_gatewaykit_second is not enabled in the cart's region/,
      'not_allowed',
    ],
    [
      'an unknown cart',
      { cart_id: 'cart_NOPE', provider_id: 'pp_gatewaykit_gatewaykit' },
      /body\.cart_id: no such cart/,
      'not_found',
    ],
    [
      'a completed cart',
      { cart_id: 'cart_DONE', provider_id: 'pp_gatewaykit_gatewaykit' },
      /body\.cart_id: this cart is completed/,
      'not_allowed',
    ],
  ];
  for (const [name, body, message, type] of refusals) {
    it(`refuses ${name} with a 4xx naming the field; no token is minted`, async () => {
      const { scope } = scopeWith(CARTS, REGIONS);
      const { created, clientOf } = clients();
      await expect(issueCardElement(scope, body, { now, clientOf })).rejects.toMatchObject({
        type,
        message: expect.stringMatching(message),
      });
      expect(created).toEqual([]);
    });
  }

  it('a provider disabled in the region is refused', async () => {
    const { scope } = scopeWith(CARTS, [
      { id: 'reg_1', payment_providers: [{ id: 'pp_gatewaykit_gatewaykit', is_enabled: false }] },
    ]);
    const { created, clientOf } = clients();
    await expect(
      issueCardElement(
        scope,
        { cart_id: 'cart_OPEN1', provider_id: 'pp_gatewaykit_gatewaykit' },
        { clientOf },
      ),
    ).rejects.toMatchObject({ type: 'not_allowed' });
    expect(created).toEqual([]);
  });

  it('a gateway that issues no token is reported as unavailable, without its details leaking a card number', async () => {
    const { scope } = scopeWith(CARTS, REGIONS);
    const clientOf = () =>
      ({
        sessionTokens: {
          create: async () => {
            throw new GatewayConnectionError('connect ECONNREFUSED');
          },
        },
      }) as unknown as GatewayClient;
    await expect(
      issueCardElement(
        scope,
        { cart_id: 'cart_OPEN1', provider_id: 'pp_gatewaykit_gatewaykit' },
        { clientOf },
      ),
    ).rejects.toBeInstanceOf(CardElementUnavailableError);
  });
});

describe('POST /store/gatewaykit/payment-methods without allowRawCardData', () => {
  it('answers a 400 pointing to the card element, not a 500', async () => {
    const { scope } = scopeWith([], []);
    const req = { scope, auth_context: { actor_id: 'cus_1' }, body: { card: {}, billingDetail: {} } };
    await expect(saveCardRoute(req as never, {} as never)).rejects.toMatchObject({
      type: 'not_allowed',
      message: expect.stringMatching(
        /card element.*POST \/store\/gatewaykit\/card-element.*data\.saveCard: true/,
      ),
    });
  });
});
