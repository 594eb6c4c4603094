import { describe, expect, it } from 'vitest';
import {
  checkoutPaymentRequestSchema,
  confirmChargeRequestSchema,
  createPaymentMethodRequestSchema,
  customerListSchema,
  localPaymentRequestSchema,
  paymentMethodListSchema,
  paymentMethodOrNothingSchema,
} from '../src/index.js';
import { issuesOf } from '../src/validation.js';
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

describe('confirmCharge request: the remaining docs/gateway-protocol.md#confirmcharge constraints, one row each', () => {
  const cardPath = 'customerPaymentMethod.card';
  const billingPath = 'customerPaymentMethod.billingDetail';
  const addressPath = `${billingPath}.address`;
  const { customerPaymentMethodId: _, ...rest } = charge;
  // A raw-card charge with every optional field the rows touch, valid as it is.
  const base = {
    ...rest,
    callbackUrl: 'https://shop.example/callback',
    customerId: 'cus_1',
    platform: 'shopify',
    remark: 'gift',
    goodsDetails: [{ goodsTitle: 'Tea', goodsCount: '1', goodsPrice: '10.00' }],
    shipping: { firstName: 'Ada', address: { line1: '2 Side Road', city: 'Berlin', country: 'DE' } },
    customerPaymentMethod: { billingDetail, card },
  };

  /** A deep copy of base with the value at a dotted path replaced (undefined: removed). */
  function withValue(path: string, value: unknown): unknown {
    const copy = structuredClone(base) as Record<string, unknown>;
    const keys = path.split('.');
    let target: Record<string, unknown> = copy;
    for (const key of keys.slice(0, -1)) target = target[key] as Record<string, unknown>;
    const last = keys.at(-1) as string;
    if (value === undefined) delete target[last];
    else target[last] = value;
    return copy;
  }

  type Row = [label: string, input: unknown, expected: string[]];
  // Each limit twice: at the limit (accepted) and one past it (refused at that path).
  const maxLengths: [path: string, max: number][] = [
    ['customerIp', 50],
    ['webSite', 200],
    ['returnUrl', 1000],
    ['callbackUrl', 1000],
    ['remark', 500],
    ['platform', 10],
    ['customerId', 100],
    ['goodsDetails.0.goodsTitle', 100],
    ['goodsDetails.0.goodsCount', 30],
    ['goodsDetails.0.goodsPrice', 30],
    [`${billingPath}.email`, 200],
    [`${billingPath}.phone`, 50],
    [`${addressPath}.city`, 100],
    [`${addressPath}.line1`, 500],
    [`${addressPath}.postalCode`, 30],
  ];
  const { state: __, ...usNoState } = address;
  const rows: Row[] = [
    ['the valid base', base, []],
    ...maxLengths.flatMap(([path, max]): Row[] => [
      [`${path} at ${max} characters`, withValue(path, 'x'.repeat(max)), []],
      [`${path} over ${max} characters`, withValue(path, 'x'.repeat(max + 1)), [path]],
    ]),
    [
      'cardExpireMonth of 1 character',
      withValue(`${cardPath}.cardExpireMonth`, '1'),
      [`${cardPath}.cardExpireMonth`],
    ],
    [
      'cardExpireMonth of 3 characters',
      withValue(`${cardPath}.cardExpireMonth`, '012'),
      [`${cardPath}.cardExpireMonth`],
    ],
    [
      'cardExpireYear of 2 characters',
      withValue(`${cardPath}.cardExpireYear`, '30'),
      [`${cardPath}.cardExpireYear`],
    ],
    [
      'cardExpireYear of 5 characters',
      withValue(`${cardPath}.cardExpireYear`, '20300'),
      [`${cardPath}.cardExpireYear`],
    ],
    ['a three-letter country (DEU)', withValue(`${addressPath}.country`, 'DEU'), [`${addressPath}.country`]],
    ['a lower-case country (de)', withValue(`${addressPath}.country`, 'de'), [`${addressPath}.country`]],
    ['US billing without state', withValue(addressPath, usNoState), [`${addressPath}.state`]],
    [
      'IN billing without state',
      withValue(addressPath, { ...usNoState, country: 'IN' }),
      [`${addressPath}.state`],
    ],
    ['US shipping without state', withValue('shipping.address.country', 'US'), ['shipping.address.state']],
    // Found by the fast-form property test: the state rule read a non-string state and threw a TypeError.
    [
      'a state that is an object without a prototype',
      withValue(`${addressPath}.state`, Object.create(null)),
      [`${addressPath}.state`],
    ],
    [
      'IN shipping with its state',
      withValue('shipping.address', { ...usNoState, country: 'IN', state: 'MH' }),
      [],
    ],
    [
      'KWD with a malformed amount: both named',
      { ...(withValue('orderCurrency', 'KWD') as object), orderAmount: '10.000' },
      ['orderAmount', 'orderCurrency'],
    ],
    [
      'KWD (three minor digits)',
      { ...(withValue('orderCurrency', 'KWD') as object), orderAmount: '10' },
      ['orderCurrency'],
    ],
    [
      'priorityThreeDSecure AUTOMATIC (exact case only)',
      withValue('priorityThreeDSecure', 'AUTOMATIC'),
      ['priorityThreeDSecure'],
    ],
    ['priorityThreeDSecure automatic', withValue('priorityThreeDSecure', 'automatic'), []],
  ];

  it.each(rows)('%s', (_label, input, expected) => {
    expect(paths(confirmChargeRequestSchema, input).sort()).toEqual(expected);
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
    // The gateway matches the name in any case, but nothing else: no surrounding spaces.
    expect(paths(localPaymentRequestSchema, { ...hosted, paymentMethod: 'Klarna ' })).toEqual([
      'paymentMethod',
    ]);
    expect(paths(localPaymentRequestSchema, { ...hosted, paymentMethod: 'Credit Card' })).toEqual([
      'paymentMethod',
    ]);
  });
});

describe('tolerant response parsing where docs/gateway-protocol.md#results says "not shown"', () => {
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
