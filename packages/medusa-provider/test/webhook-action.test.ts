import { signedCallback } from '@gatewaykit/core/testing';
import { describe, expect, it } from 'vitest';
import { cardServiceWith, OPTIONS } from './fake-provider';

function signed(event: { type: string; data: Record<string, unknown> }, signKey = OPTIONS.signKey) {
  const { body, headers } = signedCallback({ gatewayNo: OPTIONS.gatewayNo, signKey, body: event });
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
