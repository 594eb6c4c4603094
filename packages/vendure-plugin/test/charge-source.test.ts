import type { PaymentOutcome } from '@gatewaykit/core';
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

function context(overrides: Partial<ChargeSourceContext> = {}): ChargeSourceContext {
  return {
    loggedIn: true,
    allowRawCardData: false,
    findOwnedCard: vi.fn(async (id: string) => (id === owned.id ? owned : undefined)),
    ...overrides,
  };
}

describe('misplacedCardInput', () => {
  it('refuses card data or a saved card sent to a hosted or local method', () => {
    for (const flow of ['hosted', 'local'] as const) {
      expect(misplacedCardInput(flow, { card })).toMatchObject({ errorCode: 'INVALID_INPUT' });
      expect(misplacedCardInput(flow, { savedCardId: 'pm_1' })).toMatchObject({ errorCode: 'INVALID_INPUT' });
      expect(misplacedCardInput(flow, { savedCardId: null, card: null })).toBeUndefined();
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

  it('refuses raw card data unless the store opted in (allowRawCardData)', async () => {
    expect(await chargeSourceFor({ mode: 'card' }, { card }, context())).toMatchObject({
      errorCode: 'RAW_CARD_NOT_ALLOWED',
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
