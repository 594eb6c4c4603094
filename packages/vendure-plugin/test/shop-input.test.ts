import { describe, expect, it } from 'vitest';
import { cardElementArgs, parseShopInput, startPaymentInput } from '../src/api/shop-input';

/** A gateway method id (19 digits) whose digits pass Luhn: an id, not card data, in the fields made for ids. */
const LUHN_ID = 'pm_1000000000000000009';

describe('startPaymentInput: card element fields', () => {
  it('takes an element method id and saveCard', () => {
    expect(
      parseShopInput(startPaymentInput, {
        paymentMethodCode: 'gatewaykit-card',
        elementPaymentMethodId: LUHN_ID,
        saveCard: true,
      }),
    ).toEqual({
      ok: true,
      value: { paymentMethodCode: 'gatewaykit-card', elementPaymentMethodId: LUHN_ID, saveCard: true },
    });
    expect(
      parseShopInput(startPaymentInput, {
        paymentMethodCode: 'gatewaykit-card',
        elementPaymentMethodId: 'pm_1',
        saveCard: null,
      }).ok,
    ).toBe(true);
  });

  it('refuses markup, spaces or over-long ids, naming the field and not the value', () => {
    for (const bad of ['pm 1', '<script>', 'a'.repeat(101), '', 'pm_1\n']) {
      const parsed = parseShopInput(startPaymentInput, {
        paymentMethodCode: 'gatewaykit-card',
        elementPaymentMethodId: bad,
      });
      expect(parsed).toMatchObject({ ok: false, message: expect.stringContaining('elementPaymentMethodId') });
      if (!parsed.ok && bad.length > 2) expect(parsed.message).not.toContain(bad);
    }
  });

  it('refuses a card number typed as an id, without echoing it', () => {
    for (const field of ['elementPaymentMethodId', 'savedCardId']) {
      for (const pan of ['4242424242424242', '4242-4242-4242-4242', '4242_4242_4242_4242']) {
        const parsed = parseShopInput(startPaymentInput, {
          paymentMethodCode: 'gatewaykit-card',
          [field]: pan,
        });
        expect(parsed).toMatchObject({ ok: false, message: expect.stringContaining(field) });
        if (!parsed.ok) expect(parsed.message.replace(/\D/g, '')).not.toContain('4242424242424242');
      }
    }
  });

  it('refuses several card sources at once', () => {
    const parsed = parseShopInput(startPaymentInput, {
      paymentMethodCode: 'gatewaykit-card',
      elementPaymentMethodId: 'pm_1',
      savedCardId: 'pm_2',
    });
    expect(parsed).toMatchObject({ ok: false, message: expect.stringContaining('not several') });
  });

  it('refuses saveCard without an element method', () => {
    for (const input of [
      { paymentMethodCode: 'gatewaykit-card', saveCard: true },
      { paymentMethodCode: 'gatewaykit-card', savedCardId: 'pm_2', saveCard: true },
    ]) {
      expect(parseShopInput(startPaymentInput, input)).toMatchObject({
        ok: false,
        message: expect.stringContaining('saveCard'),
      });
    }
    // false changes nothing and is accepted anywhere.
    expect(
      parseShopInput(startPaymentInput, {
        paymentMethodCode: 'gatewaykit-card',
        savedCardId: 'pm_2',
        saveCard: false,
      }).ok,
    ).toBe(true);
  });

  it('refuses a non-boolean saveCard and unknown fields', () => {
    expect(
      parseShopInput(startPaymentInput, {
        paymentMethodCode: 'gatewaykit-card',
        elementPaymentMethodId: 'pm_1',
        saveCard: 'yes',
      }),
    ).toMatchObject({ ok: false, message: expect.stringContaining('saveCard') });
    expect(
      parseShopInput(startPaymentInput, {
        paymentMethodCode: 'gatewaykit-card',
        elementPaymentMethodId: 'pm_1',
        customerId: 'cus_victim',
      }),
    ).toMatchObject({ ok: false, message: expect.stringContaining('customerId') });
  });

  it('still finds card numbers in fields that are not card fields', () => {
    const parsed = parseShopInput(startPaymentInput, { paymentMethodCode: '4242424242424242' });
    expect(parsed.ok).toBe(false);
  });
});

describe('cardElementArgs', () => {
  it('takes a method code only', () => {
    expect(parseShopInput(cardElementArgs, { paymentMethodCode: 'gatewaykit-card' }).ok).toBe(true);
    expect(parseShopInput(cardElementArgs, { paymentMethodCode: 'x', customerId: 'cus_1' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('customerId'),
    });
    expect(parseShopInput(cardElementArgs, { paymentMethodCode: 'a b' }).ok).toBe(false);
  });
});
