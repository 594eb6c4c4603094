import { describe, expect, it } from 'vitest';
import {
  billingDetail,
  createCustomerRequestSchema,
  createPaymentMethodRequestSchema,
  customerRequest,
  gatewayAddress,
  gatewayPhone,
  refundRequest,
} from '../src/index.js';

const address = { line1: '1 Main Street', city: 'Austin', country: 'us', state: 'TX', postalCode: '73301' };
const person = { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', phone: '+1 555 0100' };

describe('gatewayPhone', () => {
  it('sends "00" when the phone is missing or under 2 characters (the gateway requires 2)', () => {
    for (const phone of [undefined, null, '', ' ', '5', ' 5 ']) expect(gatewayPhone(phone)).toBe('00');
  });

  it('keeps a usable phone, trimmed and cut to 50 characters', () => {
    expect(gatewayPhone(' 12 ')).toBe('12');
    expect(gatewayPhone('9'.repeat(60))).toBe('9'.repeat(50));
  });
});

describe('gatewayAddress', () => {
  it('upper-cases the country and leaves out empty optional fields', () => {
    expect(
      gatewayAddress({ line1: '1 Main Street', line2: '', city: 'Paris', country: ' fr ', state: '' }),
    ).toEqual({ line1: '1 Main Street', city: 'Paris', country: 'FR' });
    expect(gatewayAddress({ ...address, line2: 'Apt 2' })).toEqual({
      line1: '1 Main Street',
      line2: 'Apt 2',
      city: 'Austin',
      country: 'US',
      state: 'TX',
      postalCode: '73301',
    });
  });

  it('cuts fields to the request limits', () => {
    const long = gatewayAddress({
      line1: 'l'.repeat(600),
      line2: 'm'.repeat(600),
      city: 'c'.repeat(150),
      country: 'de',
      state: 's'.repeat(80),
      postalCode: 'p'.repeat(40),
    });
    expect([long.line1.length, long.line2?.length, long.city.length, long.state?.length]).toEqual([
      500, 500, 100, 50,
    ]);
    expect(long.postalCode).toHaveLength(30);
  });
});

describe('billingDetail', () => {
  it('builds a billing detail the gateway schema accepts', () => {
    const detail = billingDetail(person, address);
    expect(detail).toEqual({
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      phone: '+1 555 0100',
      address: { line1: '1 Main Street', city: 'Austin', country: 'US', state: 'TX', postalCode: '73301' },
    });
    const card = {
      cardNo: '4242424242424242',
      cardExpireMonth: '12',
      cardExpireYear: '2030',
      cardSecurityCode: '123',
    };
    expect(createPaymentMethodRequestSchema.safeParse({ billingDetail: detail, card }).success).toBe(true);
  });

  it('applies the phone rule, fills empty names and cuts names to 100 and 50 characters', () => {
    const detail = billingDetail(
      { email: 'ada@example.com', firstName: '', lastName: null, phone: undefined },
      address,
    );
    expect(detail).toMatchObject({ firstName: 'Customer', lastName: 'Customer', phone: '00' });
    const long = billingDetail({ ...person, firstName: 'f'.repeat(120), lastName: 'l'.repeat(120) }, address);
    expect([long.firstName.length, long.lastName.length]).toEqual([100, 50]);
  });

  it('never cuts the email: a shortened address is someone else’s', () => {
    const email = `${'a'.repeat(200)}@example.com`;
    expect(billingDetail({ ...person, email }, address).email).toBe(email);
  });
});

describe('customerRequest', () => {
  it('builds a customer record with a description', () => {
    expect(customerRequest(person, 'medusa customer cus_1')).toEqual({
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      phone: '+1 555 0100',
      description: 'medusa customer cus_1',
    });
  });

  it('leaves out blank, too short or overlong optional fields instead of sending placeholders', () => {
    expect(customerRequest({ email: '', firstName: ' ', lastName: null, phone: '5' })).toEqual({});
    expect(customerRequest({ email: `${'a'.repeat(200)}@example.com` })).toEqual({});
  });

  it('cuts names, phone and description to the request limits', () => {
    const request = customerRequest(
      { firstName: 'f'.repeat(120), lastName: 'l'.repeat(80), phone: '1'.repeat(60) },
      'd'.repeat(600),
    );
    expect(request).toEqual({
      firstName: 'f'.repeat(100),
      lastName: 'l'.repeat(50),
      phone: '1'.repeat(50),
      description: 'd'.repeat(500),
    });
    expect(createCustomerRequestSchema.safeParse(request).success).toBe(true);
  });
});

describe('refundRequest', () => {
  const order = {
    merTrackNo: 'ref_1',
    tradeNo: 'T1',
    amount: '10.00',
    paidAmount: '10.00',
    currency: 'usd',
    reason: '  Customer returned the goods  ',
  };

  it('is a full refund (1) only for the whole paid amount, in any notation', () => {
    expect(refundRequest(order)).toEqual({
      merTrackNo: 'ref_1',
      refundAmount: '10.00',
      refundReason: 'Customer returned the goods',
      refundType: '1',
      tradeNo: 'T1',
    });
    expect(refundRequest({ ...order, paidAmount: '10' }).refundType).toBe('1');
    expect(refundRequest({ ...order, amount: '4.00' }).refundType).toBe('2');
    expect(refundRequest({ ...order, amount: '1200', paidAmount: '1200', currency: 'JPY' }).refundType).toBe(
      '1',
    );
    expect(refundRequest({ ...order, amount: '9.99' }).refundType).toBe('2');
  });

  it('cuts the reason and remark to the gateway limits and never sends an empty reason', () => {
    const long = refundRequest({ ...order, reason: 'r'.repeat(300), remark: 'm'.repeat(600) });
    expect(long.refundReason).toHaveLength(256);
    expect(long.remark).toHaveLength(500);
    expect(refundRequest({ ...order, reason: ' ' }).refundReason).toBe('Refund');
    expect(refundRequest(order)).not.toHaveProperty('remark');
  });
});
