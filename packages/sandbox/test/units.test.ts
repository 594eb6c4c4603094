/** Small pieces on their own: card table, redaction, routing, virtual clock. */
import * as core from '@gatewaykit/core';
import { describe, expect, it } from 'vitest';
import { cardBrand, maskCardNo, summarizeCard } from '../src/cards.js';
import { VirtualClock } from '../src/clock.js';
import { redact, redactBody, redactText } from '../src/core.js';
import { matchRoute, resolveOperationName } from '../src/router.js';

describe('cards', () => {
  it('decides the test behaviours and masks first 6 + *** + last 4', () => {
    expect(summarizeCard('4242424242424242')).toEqual({
      brand: 'Visa',
      last4: '4242',
      maskCardNo: '424242***4242',
      behaviour: 'success',
    });
    expect(summarizeCard('4000000000009995').behaviour).toBe('decline');
    expect(summarizeCard('4000002500003155').behaviour).toBe('challenge');
    expect(summarizeCard('4000000000000077').behaviour).toBe('pending');
    expect(summarizeCard('4000000000003220').behaviour).toBe('challenge-fail');
    expect(summarizeCard('4111111111111111').behaviour).toBe('success');
    expect(summarizeCard('4111111111111112').behaviour).toBe('invalid');
    expect(maskCardNo('5333302221254276')).toBe('533330***4276');
    expect([
      cardBrand('5333302221254276'),
      cardBrand('378282246310005'),
      cardBrand('6011111111111117'),
    ]).toEqual(['MasterCard', 'AMEX', 'Discover']);
  });
});

describe('redaction', () => {
  it("is core's implementation (rules and their tests live in core)", () => {
    expect([redact, redactBody, redactText]).toEqual([core.redact, core.redactBody, core.redactText]);
  });

  it('masks card numbers and drops security codes anywhere in a body', () => {
    expect(
      redact({
        a: { cardNo: '4242424242424242', cardSecurityCode: '123' },
        note: 'pan 4000000000009995 here',
      }),
    ).toEqual({
      a: { cardNo: '424242***4242', cardSecurityCode: '***' },
      note: 'pan 400000***9995 here',
    });
    expect(redactBody('not json 4242424242424242 "cardSecurityCode":"999"')).toBe(
      'not json 424242***4242 "cardSecurityCode":"***"',
    );
    expect(redact({ customerId: 'cus_1526753334131306496' })).toEqual({
      customerId: 'cus_1526753334131306496',
    });
  });
});

describe('routing', () => {
  it('matches every path shape and tells wrong methods from unknown paths', () => {
    expect(matchRoute('GET', '/payment_methods/pm_1/cus_1/attach')).toMatchObject({
      kind: 'operation',
      operation: { name: 'attachPaymentMethod' },
      pathParams: { customerPaymentMethodId: 'pm_1', customerId: 'cus_1' },
    });
    expect(matchRoute('GET', '/payment_methods/list/cus_1')).toMatchObject({
      operation: { name: 'listPaymentMethods' },
    });
    expect(matchRoute('POST', '/payment_methods/update')).toMatchObject({
      operation: { name: 'updatePaymentMethod' },
    });
    expect(matchRoute('GET', '/payment_methods/pm_1')).toMatchObject({
      operation: { name: 'retrievePaymentMethod' },
    });
    expect(matchRoute('DELETE', '/customers/cus_1')).toMatchObject({ operation: { name: 'deleteCustomer' } });
    expect(matchRoute('PUT', '/customers/cus_1')).toMatchObject({ kind: 'wrong-method' });
    // The OpenAPI calls route like the payment API's (one base serves both hosts).
    expect(matchRoute('GET', '/refund')).toEqual({ kind: 'wrong-method', allowed: ['POST'] });
    expect(matchRoute('GET', '/refund/R1')).toMatchObject({
      operation: { name: 'retrieveRefund' },
      pathParams: { batchNo: 'R1' },
    });
    expect(matchRoute('GET', '/orderInfo/2022')).toMatchObject({
      operation: { name: 'retrieveTransaction' },
      pathParams: { tradeNo: '2022' },
    });
    expect(matchRoute('GET', '/transactions')).toMatchObject({ operation: { name: 'listTransactions' } });
    expect(matchRoute('GET', '/chargebacks')).toMatchObject({ operation: { name: 'listChargebacks' } });
    expect(matchRoute('GET', '/refunds')).toEqual({ kind: 'unknown' });
    expect(matchRoute('GET', '/customers/cus_1/')).toMatchObject({ operation: { name: 'retrieveCustomer' } });
    expect(matchRoute('GET', '/customers/')).toMatchObject({ operation: { name: 'listCustomers' } });
    expect(matchRoute('GET', '/customers/cus_1/extra')).toEqual({ kind: 'unknown' });
  });

  it('resolves fault targets by name, path or method + path', () => {
    expect(resolveOperationName('confirmCharge')).toBe('confirmCharge');
    expect(resolveOperationName('/V2022-03/local_payment')).toBe('localPayment');
    expect(resolveOperationName('GET /customers')).toBe('listCustomers');
    expect(resolveOperationName('/customers')).toBeUndefined();
    expect(resolveOperationName('*')).toBe('*');
  });
});

describe('virtual clock', () => {
  it('runs scheduled work when moved past its due time, in due order, once', () => {
    const clock = new VirtualClock();
    const ran: string[] = [];
    clock.schedule(2000, 60_000, () => ran.push('b'));
    clock.schedule(1000, 60_000, () => ran.push('a'));
    const cancel = clock.schedule(1500, 60_000, () => ran.push('cancelled'));
    cancel();
    // Short of the first due time by more than the real milliseconds this test can take.
    clock.advance(500);
    expect(ran).toEqual([]);
    clock.advance(5000);
    expect(ran).toEqual(['a', 'b']);
    clock.advance(5000);
    expect(ran).toEqual(['a', 'b']);
    expect(clock.offset).toBe(10_500);
    clock.reset();
    expect(clock.offset).toBe(0);
  });
});
