/**
 * The compiled fast forms must decide exactly as the schemas do: same verdict on any input, same output
 * (values and key order) when accepted, and the schema's own issues when refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  callbackEventSchema,
  chargebackListSchema,
  checkoutPaymentRequestSchema,
  confirmChargeRequestSchema,
  createCustomerRequestSchema,
  createPaymentMethodRequestSchema,
  createRefundRequestSchema,
  createRefundResultSchema,
  customerListSchema,
  customerSchema,
  fastFormOf,
  hasCompiledFastForm,
  listCustomersQuerySchema,
  listTransactionsQuerySchema,
  localPaymentRequestSchema,
  OPERATIONS,
  type OperationDefinition,
  orderResultSchema,
  paymentMethodListSchema,
  paymentMethodOrNothingSchema,
  paymentMethodSchema,
  refundRecordSchema,
  safeParseFast,
  transactionListSchema,
  transactionRecordSchema,
  updatePaymentMethodRequestSchema,
} from '../src/index.js';
import { address, billingDetail, card, charge } from './support/fixtures.js';

const hosted = {
  orderNo: 'order_h1',
  orderAmount: '1000',
  orderCurrency: 'JPY',
  paymentMethod: 'Alipay',
  returnUrl: 'https://shop.example/return',
  callbackUrl: 'https://shop.example/callback',
  isMobile: '0',
  goodsDetails: [{ goodsTitle: 'Tea', goodsCount: '2', goodsPrice: '500' }],
  billingAddress: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', country: 'JP' },
  deliveryAddress: { shipCity: 'Tokyo', shipCountry: 'JP' },
};
const pm = {
  customerPaymentMethodId: 'pm_1526760521989763072',
  customerId: 'cus_1',
  card: { last4: '4242', brand: 'Visa' },
  billingDetail: { ...billingDetail, address: { ...address, line2: null } },
};

/** Valid starting points per schema; mutations then wander into the invalid and the odd. */
const seeds: [string, z.ZodType, unknown[]][] = [
  [
    'confirmCharge request',
    confirmChargeRequestSchema,
    [
      charge,
      {
        ...charge,
        customerPaymentMethodId: undefined,
        customerPaymentMethod: { billingDetail, card },
        shipping: { firstName: 'Ada', address },
        tokenType: 'InitRecurring',
        customerId: 'cus_1',
        priorityThreeDSecure: 'ANY',
        goodsDetails: hosted.goodsDetails,
      },
    ],
  ],
  ['checkoutPayment request', checkoutPaymentRequestSchema, [hosted, { ...hosted, paymentMethod: 'Card' }]],
  ['localPayment request', localPaymentRequestSchema, [hosted, { ...hosted, paymentMethod: 'kakaopay' }]],
  ['createPaymentMethod request', createPaymentMethodRequestSchema, [{ billingDetail, card }]],
  [
    'updatePaymentMethod request',
    updatePaymentMethodRequestSchema,
    [{ customerPaymentMethodId: 'pm_1', billingDetail }],
  ],
  [
    'createCustomer request',
    createCustomerRequestSchema,
    [{ email: 'ada@example.com', firstName: 'Ada' }, {}],
  ],
  ['listCustomers query', listCustomersQuerySchema, [{ pageIndex: 2, pageSize: 50 }, {}]],
  [
    'order result',
    orderResultSchema,
    [{ orderNo: 'o1', tradeNo: 123, orderStatus: 'success', maskCardNo: '424242***4242', extra: { a: 1 } }],
  ],
  ['customer', customerSchema, [{ customerId: 'cus_1', email: null, created: 1_700_000_000 }]],
  [
    'customer list',
    customerListSchema,
    [
      { pageIndex: '1', pageSize: 10, total: 1, list: [{ customerId: 'cus_1' }] },
      { paging: { pageIndex: 1, total: '1' }, list: [] },
    ],
  ],
  ['payment method', paymentMethodSchema, [pm]],
  ['payment method list', paymentMethodListSchema, [[pm], { list: [pm] }, null]],
  ['attach/detach answer', paymentMethodOrNothingSchema, [pm, null, {}, 'ok']],
  [
    'createRefund request',
    createRefundRequestSchema,
    [
      { merTrackNo: 're_1', refundAmount: '5.00', refundReason: 'returned', refundType: '2', tradeNo: 'T1' },
      {
        merTrackNo: 're_2',
        refundAmount: '10',
        refundReason: 'r',
        refundType: '1',
        tradeNo: 'T1',
        remark: '',
      },
    ],
  ],
  [
    'createRefund result',
    createRefundResultSchema,
    [{ batchNo: 'B1', refundStatus: 'pending' }, { batchNo: 7 }],
  ],
  [
    'refund record',
    refundRecordSchema,
    [
      { batchNo: 'B1', refundStatus: 'SUCCESS', refundAmount: 5, extra: 1 },
      { batchNo: 'B2', refundStatus: 'odd' },
    ],
  ],
  [
    'record query',
    listTransactionsQuerySchema,
    [
      { startTime: '2024-05-01T00:00:00', endTime: '2024-05-01T01:00:00', orderNo: 'o1', pageSize: 100 },
      { startTime: '2024-05-01T00:00:00', endTime: '2024-05-01T00:00:00' },
    ],
  ],
  [
    'transaction record',
    transactionRecordSchema,
    [
      {
        orderNo: 'o1',
        tradeNo: 'T1',
        tradeDate: '2024-05-01 00:00:01',
        tradeStatus: 'success',
        tradeAmount: '10.00',
        tradeCurrency: 'USD',
      },
    ],
  ],
  [
    'transaction list',
    transactionListSchema,
    [
      {
        page: { total: 1, pageSize: 10, pageIndex: 1 },
        list: [
          {
            orderNo: 'o1',
            tradeNo: 'T1',
            tradeDate: 'd',
            tradeStatus: 'Fail',
            tradeAmount: 1,
            tradeCurrency: 'USD',
          },
        ],
      },
      { list: null },
    ],
  ],
  [
    'chargeback list',
    chargebackListSchema,
    [
      {
        list: [
          {
            batchNo: 'C1',
            tradeNo: 'T1',
            amount: '1.00',
            currency: 'USD',
            chargebackInfo: { replyDeadline: 'x' },
          },
        ],
      },
    ],
  ],
  [
    'callback event',
    callbackEventSchema,
    [{ type: 'transaction.success', data: { orderNo: 'o1', tradeNo: 'T1' } }],
  ],
];

// (No 'constructor' key: toStrictEqual compares constructors, and each parse makes its own value.)
/** Values a mutation puts in place: wrong types, edge lengths, near-miss codes and amounts. */
const replacement = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.nat({ max: 1010 }).map((length) => 'x'.repeat(length)),
  fc.constantFrom('US', 'us', 'CA', 'JP', 'USD', 'JPY', 'KWD', 'XYZ', 'TX', 'T'),
  fc.constantFrom('10.00', '10.001', '0', '0.00', '1.5', '-1', '10', ' 1'),
  fc.constantFrom(
    'InitRecurring',
    'Recurring',
    'any',
    'Automatic',
    'automatic',
    'alipay',
    '0',
    '4',
    'success',
  ),
  fc.constantFrom('4242424242424242', '12', '13', '2030', '123', '12345'),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constantFrom(null, undefined, [], {}),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 12 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
);

type Mutation = {
  pick: number;
  keyPick: number;
  kind: 'set' | 'delete' | 'add' | 'own-proto';
  value: unknown;
  key: string;
};

/** Every object/array inside a value, the root included. */
function containers(value: unknown, found: (Record<string, unknown> | unknown[])[] = []) {
  if (typeof value === 'object' && value !== null) {
    found.push(value as Record<string, unknown>);
    for (const child of Object.values(value)) containers(child, found);
  }
  return found;
}

function mutate(seed: unknown, mutations: Mutation[]): unknown {
  const copy = structuredClone(seed);
  let root: unknown = copy;
  for (const mutation of mutations) {
    // A copy: fast-check reuses generated values, and one container placed twice would become a cycle.
    const value = structuredClone(mutation.value);
    const all = containers(root);
    if (all.length === 0) {
      root = value;
      continue;
    }
    const target = all[mutation.pick % all.length] as Record<string, unknown>;
    const keys = Object.keys(target);
    const existing = keys[mutation.keyPick % Math.max(1, keys.length)];
    if (mutation.kind === 'own-proto') {
      // An own "__proto__" key, as JSON.parse makes one (assignment would change the prototype).
      Object.defineProperty(target, '__proto__', {
        value,
        enumerable: true,
        configurable: true,
        writable: true,
      });
    } else if (mutation.kind === 'add' || existing === undefined) target[mutation.key] = value;
    else if (mutation.kind === 'delete') delete target[existing];
    else target[existing] = value;
  }
  return root;
}

/** Every key path in order, undefined values included (JSON.stringify would drop those). */
function keyPaths(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.keys(value).flatMap((key) => [
    `${prefix}${key}`,
    ...keyPaths((value as Record<string, unknown>)[key], `${prefix}${key}.`),
  ]);
}

/** The fast form and the schema agree on the verdict and, when accepted, on values and key order. */
function expectSameDecision(schema: z.ZodType, input: unknown): boolean {
  const expected = schema.safeParse(input);
  const fast = fastFormOf(schema).safeParse(input);
  expect(fast.success).toBe(expected.success);
  if (expected.success && fast.success) {
    expect(fast.data).toStrictEqual(expected.data);
    expect(keyPaths(fast.data)).toEqual(keyPaths(expected.data));
  }
  const used = safeParseFast(schema, input);
  expect(used.success).toBe(expected.success);
  if (!used.success && !expected.success) expect(used.error.issues).toEqual(expected.error.issues);
  return expected.success;
}

const mutations = fc.array(
  fc.record({
    pick: fc.nat(),
    keyPick: fc.nat(),
    kind: fc.constantFrom('set', 'delete', 'add', 'own-proto'),
    value: replacement,
    key: fc.constantFrom('extra', 'state', 'remark', 'customerPaymentMethodId', 'hasOwnProperty', 'list'),
  }),
  { minLength: 0, maxLength: 3 },
) as fc.Arbitrary<Mutation[]>;

describe('fast forms', () => {
  it('every request, query and answer schema of the 13 operations is compiled', () => {
    const schemas = (OPERATIONS as readonly OperationDefinition[]).flatMap((operation) =>
      [operation.request, operation.query, operation.result].filter((schema) => schema !== undefined),
    );
    expect(schemas.length).toBeGreaterThan(13);
    expect(schemas.filter((schema) => !hasCompiledFastForm(schema))).toEqual([]);
  });

  it.each(seeds)('%s: the fast form decides and outputs exactly as the schema', (_name, schema, starts) => {
    for (const start of starts) expect(schema.safeParse(start).success).toBe(true);
    fc.assert(
      fc.property(fc.nat({ max: starts.length - 1 }), mutations, (which, changes) => {
        expectSameDecision(schema, mutate(starts[which], changes));
      }),
      { numRuns: 400 },
    );
  });

  // Inputs whose every field is valid, varying only what the cross-field rules read: random mutations
  // almost always break a field first, and then both forms refuse for the same, wrong, reason.
  const countryAndState = fc.constantFrom(
    { country: 'US', state: 'TX' },
    { country: 'US' },
    { country: 'US', state: 'T1' },
    { country: 'US', state: 'Tex' },
    { country: 'CA', state: 'ON' },
    { country: 'IN' },
    { country: 'GB' },
    { country: 'GB', state: '' },
  );
  const amounts = fc.constantFrom('10', '10.5', '10.50', '0', '0.00', '00.0', '1000', '0.01');
  const currencies = fc.constantFrom('USD', 'JPY', 'KWD', 'EUR', 'BHD', 'CLP');
  const chargeByRules = fc.record({
    orderAmount: amounts,
    orderCurrency: currencies,
    tokenType: fc.constantFrom(undefined, 'InitRecurring', 'Recurring'),
    customerId: fc.constantFrom(undefined, 'cus_1'),
    payWith: fc.constantFrom('id', 'card', 'both', 'neither'),
    billing: countryAndState,
    shipping: fc.option(countryAndState, { nil: undefined }),
    priorityThreeDSecure: fc.constantFrom(undefined, 'any', 'ANY', 'automatic', 'Automatic'),
  });
  const chargeFrom = (rules: typeof chargeByRules extends fc.Arbitrary<infer T> ? T : never) => {
    const method = { billingDetail: { ...billingDetail, address: { ...address, ...rules.billing } }, card };
    const { state: _, country: __, ...addressRest } = address;
    return {
      ...charge,
      orderAmount: rules.orderAmount,
      orderCurrency: rules.orderCurrency,
      tokenType: rules.tokenType,
      customerId: rules.customerId,
      priorityThreeDSecure: rules.priorityThreeDSecure,
      customerPaymentMethodId: rules.payWith === 'id' || rules.payWith === 'both' ? 'pm_1' : undefined,
      customerPaymentMethod: rules.payWith === 'card' || rules.payWith === 'both' ? method : undefined,
      shipping: rules.shipping && { firstName: 'Ada', address: { ...addressRest, ...rules.shipping } },
    };
  };

  it('charges that differ only in what the cross-field rules read: same decisions, both verdicts reached', () => {
    const verdicts = new Set<boolean>();
    fc.assert(
      fc.property(chargeByRules, (rules) => {
        verdicts.add(expectSameDecision(confirmChargeRequestSchema, chargeFrom(rules)));
      }),
      { numRuns: 600 },
    );
    expect([...verdicts].sort()).toEqual([false, true]);
  });

  it('hosted and local requests that differ only in method, amount and currency: same decisions', () => {
    const verdicts = new Set<boolean>();
    fc.assert(
      fc.property(
        fc.constantFrom(checkoutPaymentRequestSchema, localPaymentRequestSchema),
        fc.constantFrom('Alipay', 'ALIPAY', 'kakaopay', 'Credit Card', 'Klarna', 'klarna pay'),
        amounts,
        currencies,
        (schema, paymentMethod, orderAmount, orderCurrency) => {
          verdicts.add(expectSameDecision(schema, { ...hosted, paymentMethod, orderAmount, orderCurrency }));
        },
      ),
      { numRuns: 300 },
    );
    expect([...verdicts].sort()).toEqual([false, true]);
  });

  // Each row passes every field check and breaks exactly one rule: both forms must refuse it.
  const ruleBreakers: [string, z.ZodType, unknown][] = [
    [
      'JPY with decimals',
      confirmChargeRequestSchema,
      { ...charge, orderCurrency: 'JPY', orderAmount: '10.5' },
    ],
    ['a zero amount', confirmChargeRequestSchema, { ...charge, orderAmount: '0.00' }],
    ['KWD (three minor digits)', confirmChargeRequestSchema, { ...charge, orderCurrency: 'KWD' }],
    [
      'both a method id and card data',
      confirmChargeRequestSchema,
      { ...charge, customerPaymentMethod: { billingDetail, card } },
    ],
    [
      'neither a method id nor card data',
      confirmChargeRequestSchema,
      { ...charge, customerPaymentMethodId: undefined },
    ],
    [
      'InitRecurring without customerId',
      confirmChargeRequestSchema,
      { ...charge, tokenType: 'InitRecurring' },
    ],
    [
      'Recurring with card data only',
      confirmChargeRequestSchema,
      {
        ...charge,
        tokenType: 'Recurring',
        customerId: 'cus_1',
        customerPaymentMethodId: undefined,
        customerPaymentMethod: { billingDetail, card },
      },
    ],
    [
      'US billing without state',
      createPaymentMethodRequestSchema,
      { billingDetail: { ...billingDetail, address: { ...address, state: undefined } }, card },
    ],
    ['an unknown local method', localPaymentRequestSchema, { ...hosted, paymentMethod: 'Credit Card' }],
    ['JPY with decimals (hosted)', checkoutPaymentRequestSchema, { ...hosted, orderAmount: '1000.50' }],
  ];
  it.each(ruleBreakers)('a rule breaker is refused by both forms: %s', (_name, schema, input) => {
    expect(expectSameDecision(schema, input)).toBe(false);
  });

  it('a refused charge still names every bad field, cross-field rules included', () => {
    const result = safeParseFast(confirmChargeRequestSchema, {
      ...charge,
      orderNo: undefined,
      customerPaymentMethodId: undefined,
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toEqual(
      expect.arrayContaining(['orderNo', 'customerPaymentMethodId']),
    );
  });
});
