import { describe, expect, it } from 'vitest';
import { GatewaykitBase } from '../src/providers/gatewaykit/base';
import { cardServiceWith, OPTIONS } from './fake-provider';

describe('validateOptions', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['gatewayNo', { ...OPTIONS, gatewayNo: '' }],
    ['signKey', { ...OPTIONS, signKey: undefined }],
    ['environment', { ...OPTIONS, baseUrl: undefined }],
    ['baseUrl', { ...OPTIONS, baseUrl: 'ftp://gateway' }],
    ['backendUrl', { ...OPTIONS, backendUrl: 'nope' }],
    ['storefrontReturnUrl', { ...OPTIONS, storefrontReturnUrl: undefined }],
    ['localPaymentMethod', { ...OPTIONS, localPaymentMethod: 'cash-in-envelope' }],
  ];
  for (const [option, options] of cases) {
    it(`rejects a bad ${option} naming it`, () => {
      expect(() => GatewaykitBase.validateOptions(options)).toThrow(`invalid option "${option}"`);
    });
  }

  it('accepts the environment preset instead of a base URL', () => {
    expect(() =>
      GatewaykitBase.validateOptions({ ...OPTIONS, baseUrl: undefined, environment: 'test' }),
    ).not.toThrow();
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
    ).rejects.toThrow(/Card data must never be sent/);
    expect(confirm).not.toHaveBeenCalled();
  });

  it('refund is not allowed and names the merchant portal', async () => {
    const { service } = cardServiceWith(async () => ({}));
    await expect(
      service.refundPayment({
        amount: 5,
        data: { outcome: { status: 'succeeded', orderNo: 'o', tradeNo: 'T77' } },
      }),
    ).rejects.toMatchObject({ type: 'not_allowed', message: expect.stringMatching(/T77.*merchant portal/) });
  });

  it('capture is a no-op; cancel and delete only log', async () => {
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
    });
    expect(status).toBe('pending');
    expect(data).toMatchObject({ orderNo: 'payses_Z', amount: '60.00', currency: 'USD', mode: 'card' });
    expect(JSON.stringify(data)).not.toContain(OPTIONS.signKey);
  });
});
