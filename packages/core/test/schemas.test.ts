import { describe, expect, it } from 'vitest';
import {
  checkoutPaymentRequestSchema,
  confirmChargeRequestSchema,
  createPaymentMethodRequestSchema,
  customerListSchema,
  issuesOf,
  localPaymentRequestSchema,
  paymentMethodListSchema,
  paymentMethodOrNothingSchema,
} from '../src/index.js';
import { address, billingDetail, card, charge } from './support/fixtures.js';

function paths(
  schema: { safeParse(v: unknown): { success: boolean; error?: unknown } },
  value: unknown,
): string[] {
  const result = schema.safeParse(value) as { success: boolean; error?: Parameters<typeof issuesOf>[0] };
  return result.success ? [] : issuesOf(result.error!).map((issue) => issue.path);
}

describe('confirmCharge request', () => {
  it('accepts a saved-card charge and a raw-card charge', () => {
    expect(paths(confirmChargeRequestSchema, charge)).toEqual([]);
    const { customerPaymentMethodId: _, ...rest } = charge;
    expect(
      paths(confirmChargeRequestSchema, { ...rest, customerPaymentMethod: { billingDetail, card } }),
    ).toEqual([]);
  });

  it('needs exactly one of customerPaymentMethodId and customerPaymentMethod', () => {
    const { customerPaymentMethodId: _, ...none } = charge;
    expect(paths(confirmChargeRequestSchema, none)).toEqual(['customerPaymentMethodId']);
    expect(
      paths(confirmChargeRequestSchema, { ...charge, customerPaymentMethod: { billingDetail, card } }),
    ).toEqual(['customerPaymentMethodId']);
  });

  it('needs customerId for InitRecurring and Recurring, and a stored method for Recurring', () => {
    expect(paths(confirmChargeRequestSchema, { ...charge, tokenType: 'InitRecurring' })).toEqual([
      'customerId',
    ]);
    const { customerPaymentMethodId: _, ...rest } = charge;
    expect(
      paths(confirmChargeRequestSchema, {
        ...rest,
        customerId: 'cus_1',
        tokenType: 'Recurring',
        customerPaymentMethod: { billingDetail, card },
      }),
    ).toEqual(['customerPaymentMethodId']);
    expect(paths(confirmChargeRequestSchema, { ...charge, tokenType: 'Sometimes' })).toEqual(['tokenType']);
  });

  it('checks lengths, fixed lengths, formats and the amount against the currency', () => {
    const bad = {
      ...charge,
      orderNo: 'x'.repeat(51),
      orderCurrency: 'usd',
      isMobile: '4',
      goodsDetails: Array.from({ length: 11 }, () => ({ goodsTitle: 't', goodsCount: '1', goodsPrice: '1' })),
      priorityThreeDSecure: 'sometimes',
    };
    expect(paths(confirmChargeRequestSchema, bad).sort()).toEqual(
      ['goodsDetails', 'isMobile', 'orderCurrency', 'orderNo', 'priorityThreeDSecure'].sort(),
    );
    expect(
      paths(confirmChargeRequestSchema, { ...charge, orderCurrency: 'JPY', orderAmount: '10.50' }),
    ).toEqual(['orderAmount']);
    expect(paths(confirmChargeRequestSchema, { ...charge, orderAmount: '10.005' })).toEqual(['orderAmount']);
    expect(paths(confirmChargeRequestSchema, { ...charge, priorityThreeDSecure: 'ANY' })).toEqual([]);
  });

  it('requires state for US, CA and IN only, and applies the safe 50-character lastName rule', () => {
    const { customerPaymentMethodId: _, ...rest } = charge;
    const withAddress = (a: object, extra: object = {}) => ({
      ...rest,
      customerPaymentMethod: { billingDetail: { ...billingDetail, ...extra, address: a }, card },
    });
    const { state: __, ...noState } = address;
    expect(paths(confirmChargeRequestSchema, withAddress({ ...noState, country: 'CA' }))).toEqual([
      'customerPaymentMethod.billingDetail.address.state',
    ]);
    expect(paths(confirmChargeRequestSchema, withAddress({ ...noState, country: 'DE' }))).toEqual([]);
    expect(paths(confirmChargeRequestSchema, withAddress(address, { lastName: 'x'.repeat(51) }))).toEqual([
      'customerPaymentMethod.billingDetail.lastName',
    ]);
  });

  it('names card fields without echoing their values', () => {
    const result = createPaymentMethodRequestSchema.safeParse({
      billingDetail,
      card: { ...card, cardNo: '4242', cardSecurityCode: '98765' },
    });
    expect(result.success).toBe(false);
    const issues = issuesOf(result.error!);
    expect(issues.map((i) => i.path).sort()).toEqual(['card.cardNo', 'card.cardSecurityCode']);
    expect(JSON.stringify(issues)).not.toMatch(/4242|98765/);
  });
});

describe('hosted checkout and local payment requests', () => {
  const hosted = {
    orderNo: 'o1',
    orderAmount: '5.00',
    orderCurrency: 'EUR',
    paymentMethod: 'Credit Card',
    returnUrl: 'https://shop.example/r',
    callbackUrl: 'https://shop.example/c',
  };

  it('accepts a checkout request', () => {
    expect(paths(checkoutPaymentRequestSchema, hosted)).toEqual([]);
  });

  it('accepts the 14 local method names in any case and refuses others', () => {
    expect(paths(localPaymentRequestSchema, { ...hosted, paymentMethod: 'KLARNA' })).toEqual([]);
    expect(paths(localPaymentRequestSchema, { ...hosted, paymentMethod: 'korea local cards' })).toEqual([]);
    expect(paths(localPaymentRequestSchema, { ...hosted, paymentMethod: 'Credit Card' })).toEqual([
      'paymentMethod',
    ]);
  });
});

describe('tolerant response parsing where API.md says "not shown"', () => {
  const customer = { customerId: 'cus_1', email: 'a@b.c' };

  it('reads the customer list inside or beside the paging object', () => {
    const inside = customerListSchema.parse({
      page: { pageIndex: 2, pageSize: 1, total: 3, list: [customer] },
    });
    const beside = customerListSchema.parse({
      page: { pageIndex: 2, pageSize: 1, total: 3 },
      list: [customer],
    });
    const flat = customerListSchema.parse({ pageIndex: '2', pageSize: 1, total: 3, list: [customer] });
    for (const parsed of [inside, beside, flat]) {
      expect(parsed).toMatchObject({ pageIndex: 2, pageSize: 1, total: 3, list: [{ customerId: 'cus_1' }] });
    }
  });

  it('reads a payment-method list as an array, a {list} object or null', () => {
    const pm = { customerPaymentMethodId: 'pm_1', card: { brand: 'Visa', last4: '4242' } };
    expect(paymentMethodListSchema.parse([pm])).toHaveLength(1);
    expect(paymentMethodListSchema.parse({ list: [pm] })).toHaveLength(1);
    expect(paymentMethodListSchema.parse(null)).toEqual([]);
  });

  it('reads attach/detach data as a payment method or nothing', () => {
    expect(paymentMethodOrNothingSchema.parse(null)).toBeNull();
    expect(paymentMethodOrNothingSchema.parse({})).toBeNull();
    expect(paymentMethodOrNothingSchema.parse({ customerPaymentMethodId: 'pm_9' })).toMatchObject({
      customerPaymentMethodId: 'pm_9',
    });
  });
});
