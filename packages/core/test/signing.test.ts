import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  phpJsonEncode,
  safeEqualHex,
  signCallback,
  signRequest,
  signReturn,
  verifyCallback,
} from '../src/index.js';
import { buildRequestSignString, buildReturnSignString } from '../src/signing.js';
import { signedCallback } from '../src/testing.js';

// docs/signing.md#worked-examples: key testkey1, gateway 12345001, request-id REQ-0001, time 1651888520935.
const head = {
  signKey: 'testkey1',
  gatewayNo: '12345001',
  requestId: 'REQ-0001',
  requestTime: '1651888520935',
};

describe('request signing (worked examples of docs/signing.md#worked-examples)', () => {
  it('signs a POST body as H.B', () => {
    const body = '{"orderNo":"T1","orderAmount":"7.00","orderCurrency":"USD"}';
    expect(buildRequestSignString({ ...head, body })).toBe(`12345001REQ-00011651888520935.${body}`);
    expect(signRequest({ ...head, body })).toBe(
      '4fa1e91057fdc10d35257443ddaab7ba7d7849d334b7be30f9400e10f4a50bf9',
    );
  });

  it('signs a path parameter as H.P', () => {
    expect(signRequest({ ...head, pathParams: { customerId: 'cus_1' } })).toBe(
      '07e8418a86fdd43c7ec87f37a9785facc2dc51e63ea17ac4036d2d1c003e2416',
    );
  });

  it('signs query values only, ordered by key', () => {
    const query = { pageSize: 5, pageIndex: 1 };
    expect(buildRequestSignString({ ...head, query })).toBe('12345001REQ-00011651888520935.15');
    expect(signRequest({ ...head, query })).toBe(
      '4f2fe75913be2dd2a16b434a31ff81ba2798c17770c83b0f633e1956aefcbfc2',
    );
  });

  it("orders attach's path values by parameter name: customerId before customerPaymentMethodId", () => {
    const pathParams = { customerPaymentMethodId: 'pm_1', customerId: 'cus_1' };
    expect(buildRequestSignString({ ...head, pathParams })).toBe('12345001REQ-00011651888520935.cus_1pm_1');
    expect(signRequest({ ...head, pathParams })).toBe(
      '1b39eb393c85a3ecf6610d82da429b195a7ee9c38cb0eaac8dd7c4ff8e1abaaa',
    );
  });

  it('signs a bodyless call over H only, without a trailing dot', () => {
    expect(buildRequestSignString(head)).toBe('12345001REQ-00011651888520935');
    expect(signRequest(head)).toBe('dc8302b83eb550752beb361f7c6ab30b8ad3c828a144b13b0aac6d23ad93dd5f');
  });

  it('outputs lowercase hex for requests', () => {
    expect(signRequest({ ...head, body: '{}' })).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('callback and return signing', () => {
  it('signs a callback over H+version and the body, uppercase', () => {
    const body = '{"data":{"orderNo":"T1","orderStatus":"success"},"type":"transaction.success"}';
    expect(signCallback({ ...head, requestId: 'REQ-0002', version: 'V2022-03', body })).toBe(
      '4e7e52da21fba2ce5456b8321957c912c40aff3d46f4e2cf72239655305004c7'.toUpperCase(),
    );
  });

  it('concatenates the 11 return fields in ASCII name order (the documented example string)', () => {
    const fields = {
      tradeNo: '2022041810092544882449',
      orderStatus: 'success',
      orderNo: '1474187659537',
      orderInfo: 'Transaction Approved',
      orderCurrency: 'EUR',
      orderAmount: '358.70',
      message: 'Success',
      merNo: '12261',
      maskCardNo: '400000***3155',
      gatewayNo: '12261003',
      code: '0000',
    };
    // The example's orderNo is NEW_API1474187659537 in the doc; the order of the parts is what matters.
    expect(buildReturnSignString({ ...fields, orderNo: 'NEW_API1474187659537' })).toBe(
      '000012261003400000***315512261Success358.70EURTransaction ApprovedNEW_API1474187659537success2022041810092544882449',
    );
    expect(signReturn(fields, 'k')).toMatch(/^[0-9A-F]{64}$/);
  });
});

describe('safeEqualHex', () => {
  it('compares case-insensitively', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{64}$/), (hex) => {
        expect(safeEqualHex(hex, hex.toUpperCase())).toBe(true);
      }),
    );
  });

  it('rejects any other value, including prefixes', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{64}$/), fc.stringMatching(/^[0-9a-f]{1,64}$/), (a, b) => {
        fc.pre(a !== b);
        expect(safeEqualHex(a, b)).toBe(false);
      }),
    );
  });
});

describe('phpJsonEncode', () => {
  it('escapes slashes as PHP does and leaves non-ASCII as is', () => {
    expect(phpJsonEncode({ url: 'https://a/b', name: 'José' })).toBe(
      '{"url":"https:\\/\\/a\\/b","name":"José"}',
    );
  });

  it('writes U+2028 and U+2029 as \\u2028 / \\u2029, as PHP does without JSON_UNESCAPED_LINE_TERMINATORS', () => {
    // PHP: json_encode(['note' => "a\u{2028}b\u{2029}c/é"], JSON_UNESCAPED_UNICODE)
    expect(phpJsonEncode({ note: 'a\u2028b\u2029c/é' })).toBe('{"note":"a\\u2028b\\u2029c\\/é"}');
    expect(phpJsonEncode(['\u2028\u2028', '\u2029'])).toBe('["\\u2028\\u2028","\\u2029"]');
  });

  it("lets verifyCallback's PHP re-encode fallback accept a body with raw line separators", () => {
    const event = { type: 'transaction.success', data: { orderNo: 'o1', orderInfo: 'line\u2028two' } };
    const signedForm = phpJsonEncode(event);
    const { headers } = signedCallback({
      gatewayNo: '12345678',
      signKey: 'k',
      body: signedForm,
      requestId: 'CB-1',
      requestTime: 1_700_000_000_000,
    });
    // The same event as JSON.stringify writes it: U+2028 raw, '/' unescaped.
    const result = verifyCallback({
      rawBody: JSON.stringify(event),
      headers,
      gatewayNo: '12345678',
      signKey: 'k',
      now: 1_700_000_000_000,
    });
    expect(result.data.orderInfo).toBe('line\u2028two');
  });

  it('stays parseable back to the same value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const encoded = phpJsonEncode(value);
        expect(JSON.parse(encoded)).toEqual(JSON.parse(JSON.stringify(value)));
        expect(encoded).not.toMatch(/[\u2028\u2029]/);
      }),
    );
  });
});
