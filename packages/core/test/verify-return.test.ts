import { describe, expect, it } from 'vitest';
import { RETURN_FIELD_NAMES, signReturn, verifyReturn } from '../src/index.js';

const signKey = 'return-key';
const fields = {
  code: '0000',
  gatewayNo: '12261003',
  maskCardNo: '400000***3155',
  merNo: '12261',
  message: 'Success',
  orderAmount: '358.70',
  orderCurrency: 'EUR',
  orderInfo: 'Transaction Approved',
  orderNo: 'NEW_API1474187659537',
  orderStatus: 'success',
  tradeNo: '2022041810092544882449',
};

function returnUrl(extra: Record<string, string> = {}, key = signKey) {
  const url = new URL('https://shop.example/gatewaykit/return?cart_id=cart_1');
  for (const [name, value] of Object.entries({ ...fields, ...extra })) url.searchParams.set(name, value);
  url.searchParams.set('signInfo', signReturn({ ...fields, ...extra }, key));
  return url;
}

describe('verifyReturn', () => {
  it('verifies decoded values of the 11 fields and ignores the merchant own parameters', () => {
    const url = returnUrl();
    expect(url.search).toContain('Transaction+Approved');
    const result = verifyReturn({ query: url.searchParams, signKey });
    expect(result).toMatchObject({
      orderNo: fields.orderNo,
      orderStatus: 'success',
      maskCardNo: '400000***3155',
    });
    expect(Object.keys(result).sort()).toEqual([...RETURN_FIELD_NAMES].sort());
  });

  it('takes a query string or a framework query object, and a lowercase signature', () => {
    const url = returnUrl();
    expect(verifyReturn({ query: url.search, signKey }).tradeNo).toBe(fields.tradeNo);
    const record = Object.fromEntries(url.searchParams.entries());
    record.signInfo = record.signInfo!.toLowerCase();
    expect(verifyReturn({ query: record, signKey }).orderAmount).toBe('358.70');
  });

  it('rejects edited values, a wrong key and a missing signature', () => {
    const url = returnUrl();
    url.searchParams.set('orderStatus', 'fail');
    expect(() => verifyReturn({ query: url.searchParams, signKey })).toThrow(/does not match/);
    expect(() => verifyReturn({ query: returnUrl({}, 'other').searchParams, signKey })).toThrow(
      /does not match/,
    );
    const unsigned = returnUrl();
    unsigned.searchParams.delete('signInfo');
    expect(() => verifyReturn({ query: unsigned.searchParams, signKey })).toThrow(/missing/);
  });

  it('treats an absent maskCardNo as empty, as the official SDK does', () => {
    const { maskCardNo: _, ...rest } = fields;
    const url = new URL('https://shop.example/r');
    for (const [name, value] of Object.entries(rest)) url.searchParams.set(name, value);
    url.searchParams.set('signInfo', signReturn({ ...rest, maskCardNo: '' }, signKey));
    expect(verifyReturn({ query: url.searchParams, signKey }).maskCardNo).toBe('');
  });
});
