import { GATEWAY_API_VERSION, phpJsonEncode, signCallback } from '@gatewaykit/core';
import { describe, expect, it } from 'vitest';
import { cardServiceWith, OPTIONS } from './fake-provider';

function signed(event: unknown, signKey = OPTIONS.signKey) {
  const body = phpJsonEncode(event);
  const requestId = 'req-1';
  const requestTime = String(Date.now());
  const headers = {
    'gateway-no': OPTIONS.gatewayNo,
    'request-id': requestId,
    'request-time': requestTime,
    version: GATEWAY_API_VERSION,
    'sign-info': signCallback({
      signKey,
      gatewayNo: OPTIONS.gatewayNo,
      requestId,
      requestTime,
      version: GATEWAY_API_VERSION,
      body,
    }),
  };
  return { data: JSON.parse(body), rawData: Buffer.from(body), headers };
}

const success = {
  type: 'transaction.success',
  data: {
    orderNo: 'payses_W',
    tradeNo: 'T5',
    orderStatus: 'success',
    orderAmount: '60.00',
    orderCurrency: 'USD',
  },
};

describe('getWebhookActionAndData (stock /hooks/payment route)', () => {
  it('a signed success becomes `captured` for the session, in major units', async () => {
    const { service } = cardServiceWith(async () => ({}));
    expect(await service.getWebhookActionAndData(signed(success))).toEqual({
      action: 'captured',
      data: { session_id: 'payses_W', amount: 60 },
    });
  });

  it('a failure is not_supported (the plugin route stores failures itself)', async () => {
    const { service } = cardServiceWith(async () => ({}));
    const fail = {
      type: 'transaction.fail',
      data: { ...success.data, orderStatus: 'fail', orderInfo: 'Declined' },
    };
    expect((await service.getWebhookActionAndData(signed(fail))).action).toBe('not_supported');
  });

  it('a bad signature throws', async () => {
    const { service } = cardServiceWith(async () => ({}));
    await expect(service.getWebhookActionAndData(signed(success, 'another-sign-key'))).rejects.toThrow(
      /Callback rejected/,
    );
  });
});
