/**
 * `createElementPaymentMethod`: exactly the HTTP call the card iframe makes (docs/card-element.md), for
 * server-side tests that have no browser. Throws an Error carrying the sandbox's message on a refusal.
 */
import { ELEMENT_METHODS_PATH, ELEMENT_SUCCESS_CODE } from './method-endpoint.js';

export interface ElementCard {
  cardNo: string;
  cardExpireMonth: string;
  cardExpireYear: string;
  cardSecurityCode: string;
}

export interface ElementBillingDetail {
  firstName: string;
  lastName: string;
  email: string;
  phone: string;
  address: {
    city: string;
    country: string;
    line1: string;
    line2?: string;
    postalCode?: string;
    state?: string;
  };
}

export interface ElementPaymentMethodInput {
  card: ElementCard;
  /** Default: a test shopper in London, since the element (like createPaymentMethod) requires one. */
  billingDetail?: ElementBillingDetail;
  customerId?: string;
}

export const TEST_BILLING_DETAIL: ElementBillingDetail = {
  firstName: 'Test',
  lastName: 'Shopper',
  email: 'shopper@example.com',
  phone: '+44 20 7946 0000',
  address: { city: 'London', country: 'GB', line1: '1 Test Street', postalCode: 'EC1A 1AA' },
};

export async function createElementPaymentMethod(
  sandboxBaseUrl: string,
  sessionToken: string,
  input: ElementPaymentMethodInput,
): Promise<{ customerPaymentMethodId: string }> {
  // The base as core takes it: trailing slashes and a version segment dropped.
  const base = sandboxBaseUrl.replace(/\/+$/, '').replace(/\/V2022-03$/i, '');
  const url = `${base}${ELEMENT_METHODS_PATH}`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      sessionToken,
      billingDetail: input.billingDetail ?? TEST_BILLING_DETAIL,
      card: input.card,
      customerId: input.customerId ?? '',
    }),
  });
  const answer = (await response.json().catch(() => undefined)) as
    | { code?: unknown; message?: unknown; data?: { customerPaymentMethodId?: unknown } }
    | undefined;
  const id = answer?.data?.customerPaymentMethodId;
  if (answer?.code === ELEMENT_SUCCESS_CODE && typeof id === 'string') return { customerPaymentMethodId: id };
  const message = typeof answer?.message === 'string' ? answer.message : `HTTP ${response.status}`;
  throw new Error(`card element refused the payment method: ${message}`);
}
