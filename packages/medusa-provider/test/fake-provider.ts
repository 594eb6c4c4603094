import type { GatewayClient } from '@gatewaykit/core';
import { vi } from 'vitest';
import { GatewaykitCardService } from '../src/providers/gatewaykit/card';

export const OPTIONS = {
  gatewayNo: '12345678',
  signKey: 'unit-test-sign-key',
  baseUrl: 'http://gateway.test',
  backendUrl: 'http://shop.test',
  storefrontReturnUrl: 'http://storefront.test/return',
};

export const BUYER = {
  email: 'ada@example.com',
  firstName: 'Ada',
  lastName: 'Lovelace',
  billingAddress: { line1: '1 Test Street', city: 'Austin', country: 'US', state: 'TX', postalCode: '73301' },
};

/** The card service with a fake gateway client: only `charges.confirm` is exercised. */
export function cardServiceWith(confirm: (body: Record<string, unknown>) => Promise<unknown>) {
  const fake = { charges: { confirm: vi.fn(confirm) } };
  class TestCardService extends GatewaykitCardService {
    protected override get client(): GatewayClient {
      return fake as unknown as GatewayClient;
    }
  }
  const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const service = new TestCardService({ logger } as never, OPTIONS);
  return { service, confirm: fake.charges.confirm, logger };
}

/** Session data as initiatePayment stores it for a saved card. */
export function cardSession(orderNo = 'payses_01TEST'): Record<string, unknown> {
  return {
    orderNo,
    mode: 'card',
    amount: '60.00',
    currency: 'USD',
    customerPaymentMethodId: 'pm_1',
    buyer: BUYER,
  };
}
