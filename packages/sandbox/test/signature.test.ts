import { signRequest } from '@gatewaykit/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';
import { chargeBody, rawCall } from './helpers.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({
    port: 0,
    merchants: [
      { gatewayNo: '12345678', signKey: 'k1' },
      { gatewayNo: '87654321', signKey: 'k2' },
    ],
  });
});
afterAll(() => sb.close());
beforeEach(() => sb.reset());

describe('request headers and signature', () => {
  it('accepts a correctly signed request and echoes response-id', async () => {
    const result = await rawCall(sb, { path: '/customers', body: '{"email":"a@b.co"}', requestId: 'REQ-1' });
    expect(result.status).toBe(200);
    expect(result.envelope.code).toBe('00000');
    expect(result.headers.get('response-id')).toBe('REQ-1');
  });

  it('answers L0001 for an unknown or missing gateway-no', async () => {
    expect((await rawCall(sb, { path: '/customers', body: '{}', gatewayNo: '99999999' })).envelope.code).toBe(
      'L0001',
    );
    expect(
      (await rawCall(sb, { path: '/customers', body: '{}', omitHeaders: ['gateway-no'] })).envelope.code,
    ).toBe('L0001');
  });

  it('keeps merchants apart: one merchant key does not sign for another', async () => {
    const wrongKey = await rawCall(sb, {
      path: '/customers',
      body: '{}',
      gatewayNo: '87654321',
      signKey: 'k1',
    });
    expect(wrongKey.envelope.code).toBe('L0005');
    const created = await rawCall(sb, {
      path: '/customers',
      body: '{}',
      gatewayNo: '87654321',
      signKey: 'k2',
    });
    const customerId = (created.envelope.data as { customerId: string }).customerId;
    const fromOther = await rawCall(sb, { path: `/customers/${customerId}`, pathParams: { customerId } });
    expect(fromOther.envelope.code).toBe('P0002');
  });

  it('answers L0002 for an unknown path and for a wrong method, HTTP 200', async () => {
    const unknown = await rawCall(sb, { path: '/nope', body: '{}' });
    expect(unknown.status).toBe(200);
    expect(unknown.envelope).toMatchObject({ code: 'L0002', data: null });
    const wrongMethod = await rawCall(sb, { method: 'GET', path: '/confirmCharge' });
    expect(wrongMethod.envelope.code).toBe('L0002');
    expect(wrongMethod.envelope.message).toContain('POST');
    const outside = await fetch(`${sb.url}/V2021-01/confirmCharge`, { method: 'POST' });
    expect(((await outside.json()) as { code: string }).code).toBe('L0002');
  });

  it('answers L0003 when request-time is more than 10 minutes off the sandbox clock', async () => {
    const now = sb.clock.now();
    expect(
      (await rawCall(sb, { path: '/customers', body: '{}', requestTime: now - 11 * 60_000 })).envelope.code,
    ).toBe('L0003');
    expect(
      (await rawCall(sb, { path: '/customers', body: '{}', requestTime: now + 11 * 60_000 })).envelope.code,
    ).toBe('L0003');
    expect(
      (await rawCall(sb, { path: '/customers', body: '{}', requestTime: now - 9 * 60_000 })).envelope.code,
    ).toBe('00000');
    expect(
      (await rawCall(sb, { path: '/customers', body: '{}', requestTime: 'yesterday' })).envelope.code,
    ).toBe('L0003');
  });

  it('moves the request-time window with the virtual clock offset', async () => {
    const realNow = Date.now();
    sb.setClock({ offsetMs: 60 * 60_000 });
    expect((await rawCall(sb, { path: '/customers', body: '{}', requestTime: realNow })).envelope.code).toBe(
      'L0003',
    );
    expect(
      (await rawCall(sb, { path: '/customers', body: '{}', requestTime: realNow + 60 * 60_000 })).envelope
        .code,
    ).toBe('00000');
    sb.setClock({ offsetMs: 0 });
    expect(
      (await rawCall(sb, { path: '/customers', body: '{}', requestTime: Date.now() })).envelope.code,
    ).toBe('00000');
  });

  it('answers L0004 for a request-id reused within 30 minutes, and accepts it again after', async () => {
    const first = await rawCall(sb, { path: '/customers', body: '{}', requestId: 'same-id' });
    expect(first.envelope.code).toBe('00000');
    const again = await rawCall(sb, { path: '/customers', body: '{}', requestId: 'same-id' });
    expect(again.envelope.code).toBe('L0004');
    sb.clock.advance(31 * 60_000);
    const later = await rawCall(sb, { path: '/customers', body: '{}', requestId: 'same-id' });
    expect(later.envelope.code).toBe('00000');
  });

  it('attack: a captured request sent again with a digit moved from its request-id to a leading zero of its request-time is refused', async () => {
    const body = '{"email":"resplit@example.com"}';
    const requestTime = String(sb.clock.now());
    const first = await rawCall(sb, { path: '/customers', body, requestId: 'CAPTURED-10', requestTime });
    expect(first.envelope.code).toBe('00000');
    // `CAPTURED-10` + `T` and `CAPTURED-1` + `0T` sign the same text: the captured sign-info fits both.
    const signInfo = signRequest({
      signKey: sb.signKey,
      gatewayNo: sb.gatewayNo,
      requestId: 'CAPTURED-10',
      requestTime,
      body,
    });
    const resplit = { path: '/customers', body, requestId: 'CAPTURED-1', signInfo };
    expect((await rawCall(sb, { ...resplit, requestTime: `0${requestTime}` })).envelope.code).toBe('L0003');
    expect(sb.state().customers).toHaveLength(1);
  });

  it('does not burn a request-id on a request with a bad signature', async () => {
    expect(
      (await rawCall(sb, { path: '/customers', body: '{}', requestId: 'id-x', signInfo: 'ab'.repeat(32) }))
        .envelope.code,
    ).toBe('L0005');
    expect((await rawCall(sb, { path: '/customers', body: '{}', requestId: 'id-x' })).envelope.code).toBe(
      '00000',
    );
  });

  it('answers L0005 for a bad or missing sign-info and compares case-insensitively', async () => {
    expect((await rawCall(sb, { path: '/customers', body: '{}', signInfo: 'deadbeef' })).envelope.code).toBe(
      'L0005',
    );
    expect(
      (await rawCall(sb, { path: '/customers', body: '{}', omitHeaders: ['sign-info'] })).envelope.code,
    ).toBe('L0005');
    const requestId = 'UPPER-1';
    const requestTime = sb.clock.now();
    const upper = signRequest({
      signKey: 'k1',
      gatewayNo: '12345678',
      requestId,
      requestTime,
      body: '{}',
    }).toUpperCase();
    expect(
      (await rawCall(sb, { path: '/customers', body: '{}', requestId, requestTime, signInfo: upper }))
        .envelope.code,
    ).toBe('00000');
  });

  it('signs over path values by parameter name and query values by key', async () => {
    const created = await rawCall(sb, { path: '/customers', body: '{}' });
    const customerId = (created.envelope.data as { customerId: string }).customerId;
    const listed = await rawCall(sb, { path: '/customers', query: { pageSize: '5', pageIndex: '1' } });
    expect(listed.envelope.code).toBe('00000');
    // Signing without the path value must fail: the sandbox includes it.
    const unsignedPath = await rawCall(sb, { path: `/customers/${customerId}` });
    expect(unsignedPath.envelope.code).toBe('L0005');
  });

  it('verifies over the raw body bytes: \\/ escapes and \\u00e9 survive untouched', async () => {
    const escaped = '{"description":"caf\\u00e9 http:\\/\\/shop.example\\/a","email":"a@b.co"}';
    const result = await rawCall(sb, { path: '/customers', body: escaped });
    expect(result.envelope.code).toBe('00000');
    expect(result.envelope.data).toMatchObject({ description: 'café http://shop.example/a' });
    // The same object re-serialized differently no longer matches the signature of the sent bytes.
    const signedOther = await rawCall(sb, {
      path: '/customers',
      body: escaped,
      signInfo: signRequest({
        signKey: 'k1',
        gatewayNo: '12345678',
        requestId: 'R-2',
        requestTime: sb.clock.now(),
        body: JSON.stringify(JSON.parse(escaped)),
      }),
      requestId: 'R-2',
    });
    expect(signedOther.envelope.code).toBe('L0005');
    const raw = '{"description":"café/é","email":"a@b.co"}';
    expect((await rawCall(sb, { path: '/customers', body: raw })).envelope.code).toBe('00000');
  });
});

describe('parameter errors', () => {
  it('answers P0001 naming the field path, without echoing card data', async () => {
    const body = chargeBody({ cardNo: '4242424242424242' });
    body.customerPaymentMethod.card.cardNo = '42424242abc';
    body.customerPaymentMethod.card.cardSecurityCode = '98x';
    const result = await rawCall(sb, { path: '/confirmCharge', body: JSON.stringify(body) });
    expect(result.envelope.code).toBe('P0001');
    expect(result.envelope.message).toContain('customerPaymentMethod.card.cardNo');
    expect(result.envelope.message).toContain('customerPaymentMethod.card.cardSecurityCode');
    expect(result.envelope.message).not.toContain('42424242abc');
    expect(result.envelope.message).not.toContain('98x');
  });

  it('answers P0001 for invalid JSON and bad query values, P0002 for an empty body', async () => {
    expect((await rawCall(sb, { path: '/confirmCharge', body: '{"orderNo":' })).envelope.code).toBe('P0001');
    const badPage = await rawCall(sb, { path: '/customers', query: { pageIndex: '0', pageSize: '10' } });
    expect(badPage.envelope.code).toBe('P0001');
    expect(badPage.envelope.message).toContain('pageIndex');
    const tooBig = await rawCall(sb, { path: '/customers', query: { pageIndex: '1', pageSize: '1001' } });
    expect(tooBig.envelope.message).toContain('pageSize');
    expect((await rawCall(sb, { method: 'POST', path: '/customers', body: '' })).envelope.code).toBe('P0002');
  });

  it('answers P0001 naming paymentMethod for an unknown local method', async () => {
    const result = await rawCall(sb, {
      path: '/local_payment',
      body: JSON.stringify({
        orderNo: 'L-1',
        orderAmount: '5.00',
        orderCurrency: 'EUR',
        paymentMethod: 'Bitcoin Cash',
        returnUrl: 'https://shop.example/r',
      }),
    });
    expect(result.envelope.code).toBe('P0001');
    expect(result.envelope.message).toContain('paymentMethod');
  });
});

describe('card numbers in the wrong place', () => {
  it('are masked in error messages and in the request log', async () => {
    const wrong = await rawCall(sb, {
      path: '/customers/4242424242424242',
      pathParams: { customerId: '4242424242424242' },
    });
    expect(wrong.envelope.code).toBe('P0002');
    expect(wrong.envelope.message).toContain('424242***4242');
    const lost = await rawCall(sb, { path: '/cards/4000000000009995', body: '{}' });
    expect(lost.envelope.code).toBe('L0002');
    const text = JSON.stringify(sb.requests()) + wrong.envelope.message + lost.envelope.message;
    expect(text).not.toContain('4242424242424242');
    expect(text).not.toContain('4000000000009995');
  });
});
