import { describe, expect, it } from 'vitest';
import { chargeStateOf } from '../src/lib/open-charges';
import { GatewaykitBase } from '../src/providers/gatewaykit/base';
import { cardServiceWith, cardSession, loggedIn, OPTIONS } from './fake-provider';

describe('validateOptions', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['gatewayNo', { ...OPTIONS, gatewayNo: '' }],
    ['signKey', { ...OPTIONS, signKey: undefined }],
    ['environment', { ...OPTIONS, baseUrl: undefined }],
    ['baseUrl', { ...OPTIONS, baseUrl: 'ftp://gateway' }],
    ['backendUrl', { ...OPTIONS, backendUrl: 'nope' }],
    ['storefrontReturnUrl', { ...OPTIONS, storefrontReturnUrl: undefined }],
    ['localPaymentMethod', { ...OPTIONS, localPaymentMethod: 'cash-in-envelope' }],
    ['refunds', { ...OPTIONS, refunds: 'automatic' }],
    ['reconcileAfterSeconds', { ...OPTIONS, reconcileAfterSeconds: 0 }],
    ['failUnrecordedAfterSeconds', { ...OPTIONS, failUnrecordedAfterSeconds: 'soon' }],
    ['chargebackLookbackDays', { ...OPTIONS, chargebackLookbackDays: 1.5 }],
    ['chargebackLookbackDays', { ...OPTIONS, chargebackLookbackDays: '400' }],
    ['chargebackLookbackDays', { ...OPTIONS, chargebackLookbackDays: ' ' }],
    ['notMadeCloseAfterSeconds', { ...OPTIONS, notMadeCloseAfterSeconds: 0 }],
    ['notMadeCloseAfterSeconds', { ...OPTIONS, notMadeCloseAfterSeconds: 'a day' }],
  ];
  for (const [option, options] of cases) {
    it(`rejects a bad ${option} naming it`, () => {
      expect(() => GatewaykitBase.validateOptions(options)).toThrow(`invalid option "${option}"`);
    });
  }

  it('takes the chargeback look-back in whole days, 0 turning the pass off, 180 by default', () => {
    expect(() => GatewaykitBase.validateOptions({ ...OPTIONS, chargebackLookbackDays: 0 })).not.toThrow();
    expect(() => GatewaykitBase.validateOptions({ ...OPTIONS, chargebackLookbackDays: '30' })).not.toThrow();
    expect(() => GatewaykitBase.validateOptions({ ...OPTIONS, chargebackLookbackDays: -1 })).toThrow(
      'invalid option "chargebackLookbackDays": must be a whole number of days from 0 to 366',
    );
  });

  it('accepts the environment preset instead of a base URL', () => {
    expect(() =>
      GatewaykitBase.validateOptions({ ...OPTIONS, baseUrl: undefined, environment: 'test' }),
    ).not.toThrow();
  });

  it("names every bad gateway setting with core's rule in one error", () => {
    expect(() =>
      GatewaykitBase.validateOptions({ ...OPTIONS, gatewayNo: '1234-5678', signKey: 'short', timeoutMs: 0 }),
    ).toThrow(
      '@gatewaykit/medusa-provider: invalid option "gatewayNo": must be the merchant gateway number: 1 to 16 letters or digits; ' +
        'invalid option "signKey": must be the merchant sign key (at least 8 characters); ' +
        'invalid option "timeoutMs": must be a positive number of milliseconds',
    );
  });
});

describe('provider rules', () => {
  it('refuses card data in session data (it would be stored as given)', async () => {
    const { service, confirm } = cardServiceWith(async () => ({}));
    await expect(
      service.initiatePayment({
        amount: 10,
        currency_code: 'usd',
        data: { session_id: 'payses_X', cardNo: '4242424242424242' },
      }),
    ).rejects.toThrow(/data\.cardNo: looks like card data/);
    expect(confirm).not.toHaveBeenCalled();
  });

  it('refuses keys the provider owns (a forged outcome) and anything not allow-listed, naming them', async () => {
    const { service } = cardServiceWith(async () => ({}));
    await expect(
      service.initiatePayment({
        amount: 10,
        currency_code: 'usd',
        data: {
          session_id: 'payses_X',
          outcome: { status: 'succeeded' },
          attemptedAt: 'now',
          redirectUrl: 'x',
        },
      }),
    ).rejects.toMatchObject({
      type: 'invalid_data',
      message: expect.stringMatching(/data\.outcome: is not accepted.*data\.attemptedAt.*data\.redirectUrl/),
    });
  });

  it('returns every key it owns, so nothing stored before survives', async () => {
    const { service } = cardServiceWith(async () => ({}));
    const { data } = await service.initiatePayment({
      amount: 10,
      currency_code: 'usd',
      data: { session_id: 'payses_X' },
    });
    for (const key of ['outcome', 'attemptedAt', 'redirectUrl', 'error', 'gatewayCustomerId', 'session_id']) {
      expect(data).toHaveProperty(key, undefined);
    }
  });

  it('a saved card is used only by its logged-in owner', async () => {
    const { service } = cardServiceWith(async () => ({}));
    const input = {
      amount: 10,
      currency_code: 'usd',
      data: { session_id: 'payses_X', customerPaymentMethodId: 'pm_1' },
    };
    await expect(service.initiatePayment(input)).rejects.toThrow(
      /data\.customerPaymentMethodId: this card belongs to another customer/,
    );
    await expect(service.initiatePayment({ ...input, context: loggedIn('cus_2') })).rejects.toThrow(
      /data\.customerPaymentMethodId: this card belongs to another customer/,
    );
    const owned = await service.initiatePayment({ ...input, context: loggedIn('cus_1') });
    expect(owned.data).toMatchObject({ customerPaymentMethodId: 'pm_1', gatewayCustomerId: 'cus_1' });
  });

  it('a session whose charge may have taken money is never deleted; one never sent or failed is', async () => {
    const { service } = cardServiceWith(async () => ({}));
    for (const outcome of [
      undefined,
      { status: 'unknown' },
      { status: 'pending' },
      { status: 'succeeded' },
    ]) {
      await expect(
        service.deletePayment({ data: { orderNo: 'o', attemptedAt: 'now', outcome } }),
      ).rejects.toMatchObject({ type: 'not_allowed' });
    }
    // A session never sent, and one whose charge failed, go with their data as it was.
    const neverSent = { orderNo: 'o' };
    await expect(service.deletePayment({ data: neverSent })).resolves.toEqual({ data: neverSent });
    const failed = { orderNo: 'o', attemptedAt: 'now', outcome: { status: 'failed' } };
    await expect(service.deletePayment({ data: failed })).resolves.toEqual({ data: failed });
  });

  it('no charge starts while another session of the cart has an open charge', async () => {
    const sessions = {
      retrieve: async () => ({ payment_collection_id: 'pay_col_1' }),
      list: async () => [
        {
          id: 'payses_OLD',
          provider_id: 'pp_gatewaykit-hosted_gatewaykit',
          data: { attemptedAt: 'x', outcome: { status: 'unknown' } },
        },
      ],
    };
    const { service, confirm } = cardServiceWith(async () => ({}), { paymentSessionService: sessions });
    await expect(service.authorizePayment({ data: cardSession('payses_NEW') })).rejects.toThrow(
      /payses_OLD.*still being confirmed/,
    );
    expect(confirm).not.toHaveBeenCalled();
  });

  it('a session refused before anything is sent (no buyer) is not marked sent: the cart stays free to fix (found by review)', async () => {
    const stored: Record<string, Record<string, unknown>> = {};
    const data = { ...cardSession('payses_NOBUYER'), buyer: undefined };
    stored.payses_NOBUYER = { ...data };
    const sessions = {
      retrieve: async (id: string) => ({ data: stored[id], payment_collection_id: 'pay_col_1' }),
      update: async (input: { id: string; data?: Record<string, unknown> }) => {
        if (input.data) stored[input.id] = input.data;
        return {};
      },
      list: async () =>
        Object.entries(stored).map(([id, d]) => ({ id, provider_id: 'pp_gatewaykit_gatewaykit', data: d })),
    };
    const { service, confirm } = cardServiceWith(async () => ({}), { paymentSessionService: sessions });
    await expect(service.authorizePayment({ data: data as never, context: {} as never })).rejects.toThrow(
      /billing address/,
    );
    expect(confirm).not.toHaveBeenCalled();
    expect(stored.payses_NOBUYER?.attemptedAt).toBeUndefined();
    expect(chargeStateOf(stored.payses_NOBUYER as never)).not.toBe('open');
  });

  it('capture is a no-op; cancel and delete of an unsent session only log', async () => {
    const { service, logger } = cardServiceWith(async () => ({}));
    const data = { orderNo: 'payses_Y' };
    expect(await service.capturePayment({ data })).toEqual({ data });
    expect(await service.cancelPayment({ data })).toEqual({ data });
    expect(await service.deletePayment({ data })).toEqual({ data });
    expect(logger.warn).toHaveBeenCalled();
  });

  it('initiate stores the amount in gateway units and no secrets', async () => {
    const { service } = cardServiceWith(async () => ({}));
    const { status, data } = await service.initiatePayment({
      amount: 60,
      currency_code: 'usd',
      data: { session_id: 'payses_Z', customerPaymentMethodId: 'pm_1' },
      context: loggedIn('cus_1'),
    });
    expect(status).toBe('pending');
    expect(data).toMatchObject({ orderNo: 'payses_Z', amount: '60.00', currency: 'USD', mode: 'card' });
    expect(JSON.stringify(data)).not.toContain(OPTIONS.signKey);
  });
});

describe('saved card ids', () => {
  it('a gateway id that happens to pass the Luhn check is still a saved card id', async () => {
    const { service } = cardServiceWith(async () => ({}));
    const { data } = await service.initiatePayment({
      amount: 10,
      currency_code: 'usd',
      data: { session_id: 'payses_L', customerPaymentMethodId: 'pm_1000000000000000009' },
      context: loggedIn('cus_luhn'),
    });
    expect(data).toMatchObject({ customerPaymentMethodId: 'pm_1000000000000000009' });
  });
});
