import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  confirmChargeRequestSchema,
  phpJsonEncode,
  SignatureVerificationError,
  signRequest,
  signReturn,
  verifyCallback,
  verifyReturn,
} from '../src/index.js';
import { buildRequestSignString, hmacSha256Hex } from '../src/signing.js';
import { signedCallback } from '../src/testing.js';

const now = 1_700_000_000_000;
const dataValue = fc.oneof(fc.string(), fc.webUrl(), fc.constantFrom('José', '東京', 'a/b', '"quoted"'));

describe('sign/verify round trips', () => {
  it('any callback body signed by the gateway verifies, and any one-character change is rejected', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), dataValue, { maxKeys: 6 }),
        fc.stringMatching(/^[A-Za-z0-9-]{1,64}$/),
        fc.nat(),
        (data, requestId, position) => {
          const body = phpJsonEncode({ type: 'transaction.success', data: { orderNo: 'o1', ...data } });
          const { headers } = signedCallback({
            gatewayNo: '12345678',
            signKey: 'k',
            body,
            requestId,
            requestTime: now,
          });
          expect(
            verifyCallback({ rawBody: body, headers, gatewayNo: '12345678', signKey: 'k', now }).type,
          ).toBe('transaction.success');
          const index = position % body.length;
          const changed = body.slice(0, index) + (body[index] === 'x' ? 'y' : 'x') + body.slice(index + 1);
          expect(() =>
            verifyCallback({
              rawBody: changed,
              headers,
              gatewayNo: '12345678',
              signKey: 'k',
              now,
              allowReencodedBody: false,
            }),
          ).toThrow(SignatureVerificationError);
        },
      ),
    );
  });

  it('any signed return verifies, and changing any field is rejected', () => {
    const field = fc.string({ maxLength: 30 });
    fc.assert(
      fc.property(
        fc.record({
          orderNo: fc.string({ minLength: 1, maxLength: 50 }),
          orderAmount: field,
          message: field,
          orderInfo: field,
          tradeNo: field,
        }),
        fc.constantFrom('success', 'fail', 'pending'),
        fc.constantFrom('orderNo', 'orderAmount', 'message', 'orderInfo', 'tradeNo', 'orderStatus'),
        (values, orderStatus, edited) => {
          const fields = {
            code: '0000',
            gatewayNo: '12345678',
            maskCardNo: '',
            merNo: '12345',
            orderCurrency: 'USD',
            orderStatus,
            ...values,
          };
          const query = new URLSearchParams({ ...fields, signInfo: signReturn(fields, 'k') });
          expect(verifyReturn({ query, signKey: 'k' }).orderNo).toBe(values.orderNo);
          query.set(edited, `${query.get(edited)}!`);
          expect(() => verifyReturn({ query, signKey: 'k' })).toThrow(SignatureVerificationError);
        },
      ),
    );
  });

  it('a request signature depends on every part: header values, path, query and body', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (body, other) => {
        fc.pre(body !== other);
        const head = { signKey: 'k', gatewayNo: '12345678', requestId: 'R', requestTime: '1' };
        expect(signRequest({ ...head, body })).toBe(
          hmacSha256Hex('k', buildRequestSignString({ ...head, body })),
        );
        expect(signRequest({ ...head, body })).not.toBe(signRequest({ ...head, body: other }));
      }),
    );
  });
});

describe('schema rejection of random bad input', () => {
  it('never accepts an orderAmount that is not a positive decimal with at most two decimals', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), (orderAmount) => {
        fc.pre(!/^\d+(\.\d{1,2})?$/.test(orderAmount));
        const result = confirmChargeRequestSchema.safeParse({
          orderNo: 'o',
          orderAmount,
          orderCurrency: 'USD',
          customerIp: '1',
          returnUrl: 'r',
          webSite: 'w',
          customerPaymentMethodId: 'pm',
        });
        expect(result.success).toBe(false);
        expect(result.error!.issues.some((issue) => issue.path[0] === 'orderAmount')).toBe(true);
      }),
    );
  });

  it('answers anything at all with either a parsed request or field issues, never a crash', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        const result = confirmChargeRequestSchema.safeParse(input);
        if (!result.success) expect(result.error.issues.length).toBeGreaterThan(0);
      }),
    );
  });
});
