import { type ElementCardCheckout, GatewayBadRequestError, type GatewayClient } from '@gatewaykit/core';
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

/** Saved cards of the fake gateway, by gateway customer. */
export const SAVED_CARDS: Record<string, string[]> = {
  cus_1: ['pm_1'],
  cus_2: ['pm_2'],
  cus_luhn: ['pm_1000000000000000009'],
};

/** Payment methods the card element made and nobody saved yet (attached to no customer). */
export const ELEMENT_CARDS = ['pm_element_1', 'pm_element_2'];

/** The fake gateway's record of a payment method, as `retrievePaymentMethod` answers it. */
function methodRecord(id: string) {
  if (ELEMENT_CARDS.includes(id)) return { customerPaymentMethodId: id, card: { last4: '4242' } };
  const owner = Object.keys(SAVED_CARDS).find((customerId) => SAVED_CARDS[customerId]!.includes(id));
  // The gateway answers an unknown method as a parameter error (P0002).
  if (!owner) throw new GatewayBadRequestError('payment method does not exist', { code: 'P0002' });
  return { customerPaymentMethodId: id, customerId: owner, card: { last4: '4242' } };
}

/**
 * The card service with a fake gateway client: `charges.confirm`, `paymentMethods.list`, `retrieve`
 * (from SAVED_CARDS and ELEMENT_CARDS) and `attach`.
 */
export function cardServiceWith(
  confirm: (body: Record<string, unknown>) => Promise<unknown>,
  cradle: Record<string, unknown> = {},
) {
  const fake = {
    charges: { confirm: vi.fn(confirm) },
    paymentMethods: {
      list: vi.fn(async (customerId: string) =>
        (SAVED_CARDS[customerId] ?? []).map((id) => ({ customerPaymentMethodId: id, customerId })),
      ),
      retrieve: vi.fn(async (id: string) => methodRecord(id)),
      attach: vi.fn(async (id: string, customerId: string) => ({ customerPaymentMethodId: id, customerId })),
    },
  };
  // Element-card bindings as the store's table keeps them (first binding wins): one checkout per session
  // (the session stands for its collection here), and the shopper who named the card there.
  const bindings = new Map<string, string>();
  class TestCardService extends GatewaykitCardService {
    protected override get client(): GatewayClient {
      return fake as unknown as GatewayClient;
    }
    protected override elementCardCheckout(sessionId: string, shopper: string): ElementCardCheckout {
      const checkout = `${sessionId} by ${shopper}`;
      return {
        async bindElementCard(id) {
          if (!bindings.has(id)) bindings.set(id, checkout);
          return bindings.get(id) === checkout;
        },
      };
    }
  }
  const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
  const service = new TestCardService({ logger, ...cradle } as never, OPTIONS);
  return {
    service,
    confirm: fake.charges.confirm,
    list: fake.paymentMethods.list,
    retrieve: fake.paymentMethods.retrieve,
    attach: fake.paymentMethods.attach,
    bindings,
    logger,
  };
}

/** Session data as initiatePayment stores it for a saved card. */
export function cardSession(orderNo = 'payses_01TEST'): Record<string, unknown> {
  return {
    orderNo,
    mode: 'card',
    amount: '60.00',
    currency: 'USD',
    customerPaymentMethodId: 'pm_1',
    gatewayCustomerId: 'cus_1',
    buyer: BUYER,
  };
}

/**
 * initiatePayment's context for a logged-in customer whose gateway customer is `gatewayCustomerId`
 * (their Medusa customer id is `medusa_` and the same).
 */
export function loggedIn(gatewayCustomerId: string) {
  return {
    idempotency_key: 'x',
    customer: { id: `medusa_${gatewayCustomerId}` },
    account_holder: { id: 'acc_1', data: { id: gatewayCustomerId } },
  } as never;
}
