import { describe, expect, it } from 'vitest';
import {
  CALLBACK_EVENT_TYPES,
  phpJsonEncode,
  SignatureVerificationError,
  verifyCallback,
} from '../src/index.js';
import { signedCallback } from '../src/testing.js';

const gatewayNo = '12345678';
const signKey = 'callback-key';
const now = 1_700_000_000_000;

/** Headers signed by core/testing like the gateway's; a request-time override is signed, others are not. */
function signed(body: string, overrides: Record<string, string> = {}, key = signKey) {
  const { headers } = signedCallback({
    gatewayNo,
    signKey: key,
    body,
    requestId: 'CB-1',
    requestTime: Number(overrides['request-time'] ?? now),
  });
  return { ...headers, ...overrides };
}

const event = {
  type: 'transaction.success',
  data: {
    orderNo: 'order_1',
    tradeNo: 'T1',
    orderStatus: 'success',
    orderAmount: '10.00',
    orderCurrency: 'USD',
    returnUrl: 'https://shop.example/r',
    name: 'José',
  },
};

describe('verifyCallback', () => {
  it('accepts the raw PHP-encoded body with escaped slashes and non-ASCII text', () => {
    const body = phpJsonEncode(event);
    expect(body).toContain('https:\\/\\/shop.example');
    const result = verifyCallback({
      rawBody: Buffer.from(body),
      headers: signed(body),
      gatewayNo,
      signKey,
      now,
    });
    expect(result.type).toBe('transaction.success');
    expect(result.data.orderNo).toBe('order_1');
    expect(result.data.name).toBe('José');
  });

  it('accepts lowercase signatures and header names in any case (Fetch Headers too)', () => {
    const body = JSON.stringify(event);
    const headers = signed(body);
    const upper = Object.fromEntries(
      Object.entries(headers).map(([k, v]) => [k.toUpperCase(), k === 'sign-info' ? v.toLowerCase() : v]),
    );
    expect(verifyCallback({ rawBody: body, headers: upper, gatewayNo, signKey, now }).data.tradeNo).toBe(
      'T1',
    );
    expect(
      verifyCallback({ rawBody: body, headers: new Headers(headers), gatewayNo, signKey, now }).type,
    ).toBe('transaction.success');
  });

  it("falls back to PHP's re-encoding when the body arrived reformatted", () => {
    const signedForm = phpJsonEncode(event);
    const pretty = JSON.stringify(event, null, 2);
    expect(
      verifyCallback({ rawBody: pretty, headers: signed(signedForm), gatewayNo, signKey, now }).data.orderNo,
    ).toBe('order_1');
    expect(() =>
      verifyCallback({
        rawBody: pretty,
        headers: signed(signedForm),
        gatewayNo,
        signKey,
        now,
        allowReencodedBody: false,
      }),
    ).toThrow(SignatureVerificationError);
  });

  it('rejects a wrong key, a changed body and another gateway', () => {
    const body = phpJsonEncode(event);
    expect(() =>
      verifyCallback({ rawBody: body, headers: signed(body, {}, 'other-key'), gatewayNo, signKey, now }),
    ).toThrow(/signature/);
    const tampered = body.replace('10.00', '1.00');
    expect(() =>
      verifyCallback({ rawBody: tampered, headers: signed(body), gatewayNo, signKey, now }),
    ).toThrow(/signature/);
    expect(() =>
      verifyCallback({
        rawBody: body,
        headers: signed(body, { 'gateway-no': '99999999' }),
        gatewayNo,
        signKey,
        now,
      }),
    ).toThrow(/99999999/);
  });

  it('rejects callbacks more than 10 minutes old or ahead', () => {
    const body = phpJsonEncode(event);
    const old = String(now - 10 * 60 * 1000 - 1);
    const ahead = String(now + 10 * 60 * 1000 + 1);
    expect(() =>
      verifyCallback({
        rawBody: body,
        headers: signed(body, { 'request-time': old }),
        gatewayNo,
        signKey,
        now,
      }),
    ).toThrow(/10 minutes/);
    expect(() =>
      verifyCallback({
        rawBody: body,
        headers: signed(body, { 'request-time': ahead }),
        gatewayNo,
        signKey,
        now,
      }),
    ).toThrow(/10 minutes/);
    const edge = String(now - 10 * 60 * 1000);
    expect(
      verifyCallback({
        rawBody: body,
        headers: signed(body, { 'request-time': edge }),
        gatewayNo,
        signKey,
        now,
      }).type,
    ).toBe('transaction.success');
  });

  it('attack: a captured callback sent again with a digit moved from its request-id to a leading zero of its request-time is refused', () => {
    const body = phpJsonEncode(event);
    const { headers } = signedCallback({ gatewayNo, signKey, body, requestId: 'CB-10', requestTime: now });
    // `CB-10` + `T` and `CB-1` + `0T` are the same signed text: only the leading zero tells them apart.
    const shifted = { ...headers, 'request-id': 'CB-1', 'request-time': `0${now}` };
    expect(() => verifyCallback({ rawBody: body, headers: shifted, gatewayNo, signKey, now })).toThrow(
      expect.objectContaining({ code: 'CALLBACK_STALE' }),
    );
    // The callback as sent still verifies: the refusal is the zero's, not the signature's.
    expect(verifyCallback({ rawBody: body, headers, gatewayNo, signKey, now }).requestId).toBe('CB-10');
  });

  it('rejects missing headers and explains a parsed body instead of crashing', () => {
    const body = phpJsonEncode(event);
    const { version: _, ...noVersion } = signed(body);
    expect(() => verifyCallback({ rawBody: body, headers: noVersion, gatewayNo, signKey, now })).toThrow(
      /headers are required/,
    );
    const error = (() => {
      try {
        verifyCallback({ rawBody: event as never, headers: signed(body), gatewayNo, signKey, now });
      } catch (e) {
        return e as SignatureVerificationError;
      }
    })();
    expect(error?.code).toBe('RAW_BODY_REQUIRED');
    expect(error?.message).toMatch(/raw request body/);
  });

  it('attack: JSON nested deeper than the stack, unsigned, is a rejected signature, not a crash', () => {
    // About 240 KB: under the plugins' 256 KB body cap, and too deep to re-encode.
    const body = `${'['.repeat(120_000)}${']'.repeat(120_000)}`;
    expect(() => JSON.parse(body)).not.toThrow();
    expect(() => verifyCallback({ rawBody: body, headers: signed('{}'), gatewayNo, signKey, now })).toThrow(
      SignatureVerificationError,
    );
  });

  it('verifies a correctly signed body of an unknown event type, keeping the type as sent', () => {
    const body = JSON.stringify({ type: 'account.closed', data: {} });
    const event = verifyCallback({ rawBody: body, headers: signed(body), gatewayNo, signKey, now });
    expect(event.type).toBe('account.closed');
    expect(event.data).toEqual({});
  });
});

describe('verifyCallback: every documented event type keeps its data (docs/callbacks-and-returns.md#event-data)', () => {
  const order = {
    orderNo: 'order_1',
    tradeNo: '2022041810092544882449',
    orderAmount: '10.00',
    orderCurrency: 'USD',
  };
  const transaction = (orderStatus: string) => ({
    ...order,
    transactionType: 'Sale',
    orderInfo: 'Transaction Approved',
    orderStatus,
    remark: 'gift',
  });
  const preAuthorized = { ...order, orderStatus: 'success', operationResult: 'Success' };
  const refund = {
    ...order,
    reason: 'customer request',
    amount: '5.00',
    batchNo: 'B1',
    noticeDate: '2022-04-26 17:47:18',
    currency: 'USD',
    merTrackNo: 'R-1',
  };
  const chargeback = {
    ...order,
    chargebackInfo: { replyDeadline: '2022-05-10', cpdDate: '2022-04-28' },
    reason: 'D4755-Non-Receipt of Goods or Services',
    amount: '10.00',
    batchNo: 'C1',
    noticeDate: '2022-04-26 17:47:18',
    currency: 'USD',
  };
  const events: [string, Record<string, unknown>][] = [
    ['transaction.success', transaction('success')],
    ['transaction.fail', transaction('fail')],
    ['transaction.pending', transaction('pending')],
    ['transaction.clear', transaction('success')],
    ['pre-authorized.captured', preAuthorized],
    ['pre-authorized.void', preAuthorized],
    ['refund.success', refund],
    ['refund.fail', refund],
    ['chargeback.success', chargeback],
  ];

  it('covers every event type core knows', () => {
    expect(events.map(([type]) => type).sort()).toEqual([...CALLBACK_EVENT_TYPES].sort());
  });

  it.each(events)('%s', (type, data) => {
    const body = phpJsonEncode({ data, type });
    const result = verifyCallback({ rawBody: body, headers: signed(body), gatewayNo, signKey, now });
    expect(result.type).toBe(type);
    expect(result.data).toEqual(data);
  });

  it('chargeback.success keeps chargebackInfo typed, and other nested values as sent', () => {
    const data = {
      ...chargeback,
      amount: 10,
      chargebackInfo: { ...chargeback.chargebackInfo, stage: { code: 1, open: true } },
      documents: [{ name: 'proof' }, null],
    };
    const body = phpJsonEncode({ type: 'chargeback.success', data });
    const result = verifyCallback({ rawBody: body, headers: signed(body), gatewayNo, signKey, now });
    expect(result.data.chargebackInfo?.replyDeadline).toBe('2022-05-10');
    expect(result.data.chargebackInfo?.cpdDate).toBe('2022-04-28');
    // Primitives are read as strings at any depth.
    expect(result.data.chargebackInfo?.stage).toEqual({ code: '1', open: 'true' });
    expect(result.data.amount).toBe('10');
    expect(result.data.documents).toEqual([{ name: 'proof' }, undefined]);
  });

  it('a documented field in an undocumented shape is left out, not a rejected callback', () => {
    const body = phpJsonEncode({
      type: 'chargeback.success',
      data: { ...chargeback, chargebackInfo: 'see portal', orderNo: { id: 'order_1' } },
    });
    const result = verifyCallback({ rawBody: body, headers: signed(body), gatewayNo, signKey, now });
    expect(result.data.chargebackInfo).toBeUndefined();
    expect(result.data.orderNo).toBeUndefined();
    expect(result.data.batchNo).toBe('C1');
  });
});
