import {
  decideCardMethod,
  GatewayBadRequestError,
  GatewayConnectionError,
  type PaymentMethod,
  type PaymentOutcome,
} from '@gatewaykit/core';
import { describe, expect, it, vi } from 'vitest';
import {
  type ChargeSourceContext,
  chargeSourceFor,
  misplacedCardInput,
  withCardMask,
} from '../src/service/charge-source';

const card = {
  cardNo: '4111111111111111',
  cardExpireMonth: '12',
  cardExpireYear: '2030',
  cardSecurityCode: '123',
};
const owned = { id: 'pm_1', customerId: 'cus_1', maskCardNo: '411111****1111' };

/** The gateway's records of this merchant's payment methods (what retrievePaymentMethod would answer). */
const gatewayMethods: Record<string, PaymentMethod> = {
  pm_fresh: {
    customerPaymentMethodId: 'pm_fresh',
    customerId: undefined,
    card: { brand: 'Visa', last4: '4242' },
  },
  pm_alice: {
    customerPaymentMethodId: 'pm_alice',
    customerId: 'cus_alice',
    card: { brand: undefined, last4: '1111' },
  },
  pm_bob: { customerPaymentMethodId: 'pm_bob', customerId: 'cus_bob' },
};

function context(overrides: Partial<ChargeSourceContext> = {}): ChargeSourceContext {
  return {
    loggedIn: true,
    allowRawCardData: false,
    findOwnedCard: vi.fn(async (id: string) => (id === owned.id ? owned : undefined)),
    // Alice is logged in; she has a gateway customer already.
    gatewayCustomerId: vi.fn(async (_create: boolean) => 'cus_alice'),
    // Core's own rule over the records above.
    resolveCardMethod: vi.fn(async (id, shopper, save) =>
      decideCardMethod(gatewayMethods[id], shopper, save),
    ),
    ...overrides,
  };
}

describe('misplacedCardInput', () => {
  it('refuses card data or a saved card sent to a hosted or local method', () => {
    for (const flow of ['hosted', 'local'] as const) {
      expect(misplacedCardInput(flow, { card })).toMatchObject({ errorCode: 'INVALID_INPUT' });
      expect(misplacedCardInput(flow, { savedCardId: 'pm_1' })).toMatchObject({ errorCode: 'INVALID_INPUT' });
      expect(misplacedCardInput(flow, { elementPaymentMethodId: 'pm_fresh' })).toMatchObject({
        errorCode: 'INVALID_INPUT',
      });
      expect(misplacedCardInput(flow, { saveCard: true })).toMatchObject({ errorCode: 'INVALID_INPUT' });
      expect(misplacedCardInput(flow, { savedCardId: null, card: null, saveCard: false })).toBeUndefined();
    }
    expect(misplacedCardInput('card', { card })).toBeUndefined();
  });
});

describe('chargeSourceFor', () => {
  it('charges hosted and local methods on the gateway page, whatever the input', async () => {
    expect(await chargeSourceFor({ mode: 'hosted' }, {}, context())).toEqual({ source: { kind: 'hosted' } });
    expect(await chargeSourceFor({ mode: 'local', localMethod: 'Alipay' }, {}, context())).toEqual({
      source: { kind: 'local', method: 'Alipay' },
    });
  });

  it('charges a saved card of the logged-in customer with its gateway customer and mask', async () => {
    expect(await chargeSourceFor({ mode: 'card' }, { savedCardId: 'pm_1' }, context())).toEqual({
      source: { kind: 'saved-card', customerPaymentMethodId: 'pm_1', customerId: 'cus_1' },
      gatewayCustomerId: 'cus_1',
      maskCardNo: '411111****1111',
    });
  });

  it('refuses a saved card to a guest without looking it up', async () => {
    const ctx = context({ loggedIn: false });
    expect(await chargeSourceFor({ mode: 'card' }, { savedCardId: 'pm_1' }, ctx)).toMatchObject({
      errorCode: 'NOT_LOGGED_IN',
    });
    expect(ctx.findOwnedCard).not.toHaveBeenCalled();
  });

  it("refuses a card that is not the customer's own", async () => {
    expect(await chargeSourceFor({ mode: 'card' }, { savedCardId: 'pm_other' }, context())).toMatchObject({
      errorCode: 'CARD_NOT_FOUND',
    });
  });

  it('a saved-card lookup the gateway refuses or cannot answer is a payment error, never a raw error', async () => {
    const refused = context({
      findOwnedCard: vi.fn(async () => {
        throw new GatewayBadRequestError('customer does not exist', { code: 'P0002' });
      }),
    });
    expect(await chargeSourceFor({ mode: 'card' }, { savedCardId: 'pm_1' }, refused)).toMatchObject({
      errorCode: 'CARD_NOT_FOUND',
    });
    const down = context({
      findOwnedCard: vi.fn(async () => {
        throw new GatewayConnectionError('connect ECONNREFUSED');
      }),
    });
    expect(await chargeSourceFor({ mode: 'card' }, { savedCardId: 'pm_1' }, down)).toMatchObject({
      errorCode: 'GATEWAY_UNAVAILABLE',
      message: expect.stringContaining('nothing was charged'),
    });
  });

  it('refuses raw card data unless the store opted in (allowRawCardData)', async () => {
    expect(await chargeSourceFor({ mode: 'card' }, { card }, context())).toMatchObject({
      errorCode: 'RAW_CARD_NOT_ALLOWED',
      message: expect.stringContaining('card element (elementPaymentMethodId)'),
    });
    expect(await chargeSourceFor({ mode: 'card' }, { card }, context({ allowRawCardData: true }))).toEqual({
      source: { kind: 'card-data', card },
    });
  });

  it('needs a card for a card method', async () => {
    expect(await chargeSourceFor({ mode: 'card' }, {}, context({ allowRawCardData: true }))).toMatchObject({
      __typename: 'GatewaykitPaymentError',
      errorCode: 'CARD_REQUIRED',
    });
  });
});

describe('chargeSourceFor: card element methods (core resolveCardMethod)', () => {
  const guest = () =>
    context({ loggedIn: false, gatewayCustomerId: vi.fn(async () => 'cus_should_not_be_asked') });

  it('charges a fresh element method for a guest without any gateway customer on the charge', async () => {
    const ctx = guest();
    const charge = await chargeSourceFor({ mode: 'card' }, { elementPaymentMethodId: 'pm_fresh' }, ctx);
    expect(charge).toMatchObject({
      source: { kind: 'saved-card', customerPaymentMethodId: 'pm_fresh' },
      maskCardNo: '***4242',
    });
    expect(charge).not.toHaveProperty('gatewayCustomerId');
    expect(charge).not.toHaveProperty('source.customerId');
    expect(ctx.gatewayCustomerId).not.toHaveBeenCalled();
    expect(ctx.resolveCardMethod).toHaveBeenCalledWith('pm_fresh', { gatewayCustomerId: undefined }, false);
  });

  it('charges a fresh element method for a customer who does not save it, leaving it unbound', async () => {
    const ctx = context();
    const charge = await chargeSourceFor({ mode: 'card' }, { elementPaymentMethodId: 'pm_fresh' }, ctx);
    expect(charge).toMatchObject({ source: { kind: 'saved-card', customerPaymentMethodId: 'pm_fresh' } });
    expect(charge).not.toHaveProperty('gatewayCustomerId');
    expect(charge).not.toHaveProperty('elementCard.keep');
    // Only reading the gateway customer, never creating one, when nothing is saved.
    expect(ctx.gatewayCustomerId).toHaveBeenCalledWith(false);
  });

  it('saving binds the charge to the customer (created first if needed) and asks to keep the card', async () => {
    const ctx = context({
      gatewayCustomerId: vi.fn(async (create: boolean) => (create ? 'cus_new' : undefined)),
    });
    const charge = await chargeSourceFor(
      { mode: 'card' },
      { elementPaymentMethodId: 'pm_fresh', saveCard: true },
      ctx,
    );
    expect(ctx.gatewayCustomerId).toHaveBeenCalledWith(true);
    expect(charge).toMatchObject({
      source: { kind: 'saved-card', customerPaymentMethodId: 'pm_fresh', customerId: 'cus_new' },
      gatewayCustomerId: 'cus_new',
      elementCard: { keep: { customerPaymentMethodId: 'pm_fresh', customerId: 'cus_new' } },
    });
  });

  it("charges the customer's own attached card given as an element id", async () => {
    const charge = await chargeSourceFor({ mode: 'card' }, { elementPaymentMethodId: 'pm_alice' }, context());
    expect(charge).toMatchObject({
      source: { kind: 'saved-card', customerPaymentMethodId: 'pm_alice', customerId: 'cus_alice' },
      gatewayCustomerId: 'cus_alice',
      maskCardNo: '***1111',
    });
  });

  it("refuses another customer's attached card, to a customer and to a guest", async () => {
    expect(await chargeSourceFor({ mode: 'card' }, { elementPaymentMethodId: 'pm_bob' }, context())).toEqual({
      __typename: 'GatewaykitPaymentError',
      errorCode: 'CARD_NOT_YOURS',
      message: 'elementPaymentMethodId: this card belongs to another customer',
    });
    expect(
      await chargeSourceFor({ mode: 'card' }, { elementPaymentMethodId: 'pm_alice' }, guest()),
    ).toMatchObject({
      errorCode: 'CARD_NOT_YOURS',
    });
  });

  it('refuses a method the gateway does not know for this merchant (another merchant, made up)', async () => {
    expect(
      await chargeSourceFor({ mode: 'card' }, { elementPaymentMethodId: 'pm_nope' }, context()),
    ).toMatchObject({
      errorCode: 'CARD_NOT_FOUND',
      message: expect.stringMatching(/^elementPaymentMethodId: /),
    });
  });

  it('refuses saveCard for a guest before asking the gateway anything', async () => {
    const ctx = guest();
    expect(
      await chargeSourceFor({ mode: 'card' }, { elementPaymentMethodId: 'pm_fresh', saveCard: true }, ctx),
    ).toMatchObject({ errorCode: 'SAVE_NEEDS_LOGIN', message: expect.stringMatching(/^saveCard: /) });
    expect(ctx.resolveCardMethod).not.toHaveBeenCalled();
    expect(ctx.gatewayCustomerId).not.toHaveBeenCalled();
  });

  it('a gateway that cannot be asked refuses the charge as retryable, without leaking the error', async () => {
    const ctx = context({
      resolveCardMethod: vi.fn(async () => {
        throw new Error('connect ECONNREFUSED 10.0.0.1:443 signKey=secret');
      }),
    });
    const refused = await chargeSourceFor({ mode: 'card' }, { elementPaymentMethodId: 'pm_fresh' }, ctx);
    expect(refused).toMatchObject({ errorCode: 'GATEWAY_UNAVAILABLE' });
    expect(JSON.stringify(refused)).not.toMatch(/ECONNREFUSED|secret/);
  });

  it('the element card is used even where raw card data is allowed', async () => {
    const charge = await chargeSourceFor(
      { mode: 'card' },
      { elementPaymentMethodId: 'pm_fresh' },
      context({ allowRawCardData: true }),
    );
    expect(charge).toMatchObject({ source: { kind: 'saved-card', customerPaymentMethodId: 'pm_fresh' } });
  });
});

describe('withCardMask', () => {
  const charge = {
    source: { kind: 'saved-card' as const, customerPaymentMethodId: 'pm_1' },
    maskCardNo: '4111',
  };

  it('adds the saved card mask to a success that lacks one', () => {
    const ok: PaymentOutcome = { status: 'succeeded', orderNo: 'A-1' };
    expect(withCardMask(ok, charge)).toEqual({ status: 'succeeded', orderNo: 'A-1', maskCardNo: '4111' });
  });

  it("keeps the gateway's mask, and leaves other outcomes and other sources alone", () => {
    const masked: PaymentOutcome = { status: 'succeeded', orderNo: 'A-1', maskCardNo: '5555' };
    expect(withCardMask(masked, charge)).toBe(masked);
    const failed: PaymentOutcome = { status: 'failed', orderNo: 'A-1', reason: 'declined' };
    expect(withCardMask(failed, charge)).toBe(failed);
    const ok: PaymentOutcome = { status: 'succeeded', orderNo: 'A-1' };
    expect(withCardMask(ok, { source: { kind: 'hosted' } })).toBe(ok);
  });
});
