import { describe, expect, it } from 'vitest';
import type { ChargeSource } from '../src/service/charge-source';
import {
  amountToPay,
  buildPaymentRequest,
  gatewayUrl,
  type PayableOrder,
  paymentCurrency,
  type RequestSettings,
  toAddress,
  webSiteOf,
} from '../src/service/payment-request';

const settings: RequestSettings = {
  precision: 2,
  customerIp: '203.0.113.7',
  webSite: 'store.example.com',
  returnUrl: 'https://shop.example.com/payments/gatewaykit/return/t/m',
  callbackUrl: 'https://shop.example.com/payments/gatewaykit/callback/t/m',
};

const hosted: ChargeSource = { source: { kind: 'hosted' } };

function order(overrides: Partial<PayableOrder> = {}): PayableOrder {
  return {
    totalWithTax: 12000,
    currencyCode: 'USD',
    payments: [],
    lines: [
      {
        quantity: 2,
        proratedUnitPriceWithTax: 6000,
        proratedLinePriceWithTax: 12000,
        productVariant: { name: 'Mug' },
      },
    ],
    customer: {
      emailAddress: 'ann@example.com',
      firstName: 'Ann',
      lastName: 'Lee',
      phoneNumber: '+1 555 0100',
    },
    shippingAddress: { streetLine1: '1 Ship St', city: 'Shipton', countryCode: 'us', postalCode: '10001' },
    billingAddress: { streetLine1: '2 Bill Rd', city: 'Billham', countryCode: 'gb', province: 'Kent' },
    ...overrides,
  };
}

function built(o: PayableOrder, charge: ChargeSource = hosted) {
  const result = buildPaymentRequest(o, charge, settings);
  if ('errorCode' in result) throw new Error(`refused: ${result.errorCode} ${result.message}`);
  return result;
}

describe('amountToPay', () => {
  it('subtracts settled and authorized payments, not declined or cancelled ones', () => {
    const payments = [
      { state: 'Settled', amount: 3000 },
      { state: 'Authorized', amount: 1000 },
      { state: 'Declined', amount: 8000 },
      { state: 'Cancelled', amount: 8000 },
    ];
    expect(amountToPay({ totalWithTax: 12000, currencyCode: 'USD', payments })).toBe(8000);
  });

  it('does not count a payment made in another currency (the order moved currency after it)', () => {
    const payments = [
      { state: 'Settled', amount: 150000, metadata: { currency: 'JPY' } },
      { state: 'Settled', amount: 2000, metadata: { currency: 'USD' } },
      { state: 'Settled', amount: 1000 },
    ];
    expect(amountToPay({ totalWithTax: 150000, currencyCode: 'USD', payments })).toBe(147000);
    expect(paymentCurrency({ state: 'Settled', amount: 1, metadata: null }, 'EUR')).toBe('EUR');
    // Another handler may write its currency in lower case: still the order's own.
    const lower = [{ state: 'Settled', amount: 150000, metadata: { currency: 'usd' } }];
    expect(amountToPay({ totalWithTax: 150000, currencyCode: 'USD', payments: lower })).toBe(0);
  });
});

describe('buildPaymentRequest', () => {
  it('charges only what a settled payment leaves open, converted to the gateway amount', () => {
    const result = built(order({ payments: [{ state: 'Settled', amount: 2000 }] }));
    expect(result.amount).toBe(10000);
    expect(result.request.amount).toBe('100.00');
    expect(result.request.currency).toBe('USD');
  });

  it('refuses NOTHING_TO_PAY when payments already cover the order', () => {
    const result = buildPaymentRequest(
      order({ payments: [{ state: 'Settled', amount: 12000 }] }),
      hosted,
      settings,
    );
    expect(result).toMatchObject({ __typename: 'GatewaykitPaymentError', errorCode: 'NOTHING_TO_PAY' });
  });

  it('sends yen as whole yen and refuses an amount yen cannot express', () => {
    const yen = order({
      currencyCode: 'JPY',
      totalWithTax: 120000,
      lines: [{ quantity: 1, proratedUnitPriceWithTax: 120000, proratedLinePriceWithTax: 120000 }],
    });
    expect(built(yen).request.amount).toBe('1200');
    const fractional = buildPaymentRequest({ ...yen, totalWithTax: 120050 }, hosted, settings);
    expect(fractional).toMatchObject({ errorCode: 'UNSUPPORTED_AMOUNT' });
  });

  it('refuses UNSUPPORTED_AMOUNT naming a line the currency cannot express', () => {
    const result = buildPaymentRequest(
      order({
        currencyCode: 'JPY',
        totalWithTax: 120000,
        lines: [{ quantity: 3, proratedUnitPriceWithTax: 40001, proratedLinePriceWithTax: 120003 }],
      }),
      hosted,
      settings,
    );
    expect(result).toMatchObject({
      errorCode: 'UNSUPPORTED_AMOUNT',
      message: expect.stringContaining('line 1'),
    });
  });

  it('refuses an order without a customer', () => {
    const result = buildPaymentRequest(order({ customer: undefined }), hosted, settings);
    expect(result).toMatchObject({ errorCode: 'ORDER_STATE_ERROR', message: 'The order has no customer' });
  });

  it('carries the source, customer, goods lines and settings', () => {
    const { request } = built(order());
    expect(request).toEqual({
      source: { kind: 'hosted' },
      amount: '120.00',
      currency: 'USD',
      customer: { email: 'ann@example.com', firstName: 'Ann', lastName: 'Lee', phone: '+1 555 0100' },
      billingAddress: { line1: '2 Bill Rd', city: 'Billham', country: 'GB', state: 'Kent' },
      shippingAddress: { line1: '1 Ship St', city: 'Shipton', country: 'US', postalCode: '10001' },
      items: [{ title: 'Mug', quantity: 2, unitPrice: '60.00' }],
      customerIp: settings.customerIp,
      webSite: settings.webSite,
      returnUrl: settings.returnUrl,
      callbackUrl: settings.callbackUrl,
    });
    expect(request).not.toHaveProperty('orderNo');
  });

  it("passes a nameless guest on as is (core names them), leaves out an empty phone, adds a saved card's gateway customer", () => {
    const charge: ChargeSource = {
      source: { kind: 'saved-card', customerPaymentMethodId: 'pm_1', customerId: 'cus_1' },
      gatewayCustomerId: 'cus_1',
      maskCardNo: '4111****1111',
    };
    const { request } = built(
      order({ customer: { emailAddress: 'g@example.com', firstName: '', lastName: '', phoneNumber: '' } }),
      charge,
    );
    expect(request.customer).toEqual({
      email: 'g@example.com',
      firstName: '',
      lastName: '',
      gatewayCustomerId: 'cus_1',
    });
    expect(request.source).toEqual(charge.source);
  });

  it('bills the shipping address when the billing address has no street', () => {
    const { request } = built(order({ billingAddress: { city: 'Nowhere', countryCode: 'fr' } }));
    expect(request.billingAddress).toEqual(request.shippingAddress);
    expect(request.billingAddress.line1).toBe('1 Ship St');
  });
});

describe('toAddress', () => {
  it('fills what the gateway requires and upper-cases the country', () => {
    expect(toAddress(undefined)).toEqual({ line1: 'n/a', city: 'n/a', country: 'US' });
    expect(
      toAddress({ streetLine1: 'a', streetLine2: 'b', city: 'c', countryCode: 'de', postalCode: '' }),
    ).toEqual({
      line1: 'a',
      line2: 'b',
      city: 'c',
      country: 'DE',
    });
  });
});

describe('gatewayUrl', () => {
  it('encodes the channel token and method code into the route, without a double slash', () => {
    expect(gatewayUrl('callback', 'https://shop.example.com//', 'tok/en?', 'card pay')).toBe(
      'https://shop.example.com/payments/gatewaykit/callback/tok%2Fen%3F/card%20pay',
    );
    expect(gatewayUrl('return', 'https://shop.example.com', 't', 'm')).toBe(
      'https://shop.example.com/payments/gatewaykit/return/t/m',
    );
  });
});

describe('webSiteOf', () => {
  it('prefers the configured site, else the storefront host, else localhost', () => {
    expect(webSiteOf({ webSite: 'brand.example', storefrontOrderUrl: 'https://x.example/{code}' })).toBe(
      'brand.example',
    );
    expect(webSiteOf({ storefrontOrderUrl: 'https://store.example.com:8443/orders/{code}' })).toBe(
      'store.example.com:8443',
    );
    expect(webSiteOf({ storefrontOrderUrl: 'not a url' })).toBe('localhost');
  });
});
