import { describe, expect, it } from 'vitest';
import { SignatureVerificationError, verifyCallback, verifyReturn } from '../src/index.js';
import { returnFields, signedCallback, signedReturnQuery } from '../src/testing.js';

describe('@gatewaykit/core/testing', () => {
  it('a signed callback verifies with its key and fails with another, or when stale', () => {
    const { body, headers } = signedCallback({
      gatewayNo: '12345678',
      signKey: 'key-one',
      body: { type: 'transaction.success', data: { orderNo: 'o/1', orderStatus: 'success' } },
    });
    expect(body).toBe('{"type":"transaction.success","data":{"orderNo":"o\\/1","orderStatus":"success"}}');
    const event = verifyCallback({ rawBody: body, headers, gatewayNo: '12345678', signKey: 'key-one' });
    expect(event.data.orderNo).toBe('o/1');
    expect(() =>
      verifyCallback({ rawBody: body, headers, gatewayNo: '12345678', signKey: 'key-two' }),
    ).toThrow(SignatureVerificationError);
    const stale = signedCallback({
      gatewayNo: '12345678',
      signKey: 'key-one',
      body,
      requestTime: Date.now() - 11 * 60 * 1000,
    });
    expect(() =>
      verifyCallback({ rawBody: body, headers: stale.headers, gatewayNo: '12345678', signKey: 'key-one' }),
    ).toThrow(SignatureVerificationError);
  });

  it('a signed return query verifies, and any edited field breaks it', () => {
    const query = signedReturnQuery({ orderNo: 'o-1', orderStatus: 'success', orderAmount: '10.00' }, 'k');
    expect(verifyReturn({ query, signKey: 'k' })).toMatchObject({ orderNo: 'o-1', orderStatus: 'success' });
    query.set('orderAmount', '1.00');
    expect(() => verifyReturn({ query, signKey: 'k' })).toThrow(SignatureVerificationError);
    expect(Object.keys(returnFields({}))).toHaveLength(11);
  });
});
