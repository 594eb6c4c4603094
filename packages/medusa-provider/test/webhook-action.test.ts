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
  it('attack: a signed success sent to the stock route never runs Medusa payment workflow; nothing is charged', async () => {
    const { service, confirm } = cardServiceWith(async () => ({}));
    // Signed with this entry's own key, or any other: the plugin's own route is the only door.
    for (const key of [OPTIONS.signKey, 'another-sign-key']) {
      expect(await service.getWebhookActionAndData(signed(success, key))).toEqual({
        action: 'not_supported',
      });
    }
    expect(confirm).not.toHaveBeenCalled();
  });
});
