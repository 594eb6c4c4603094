/** `POST /sessionToken` on the sandbox (docs/gateway-protocol.md#session-tokens): signed over H only, bound to the merchant. */
import { createHmac, randomUUID } from 'node:crypto';
import { GatewayClient } from '@gatewaykit/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';
import { rawCall } from './helpers.js';

let sb: Sandbox;
let client: GatewayClient;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  client = new GatewayClient({ gatewayNo: sb.gatewayNo, signKey: sb.signKey, baseUrl: sb.url });
});
afterAll(async () => {
  await client.close();
  await sb.close();
});

describe('createSessionToken', () => {
  it('hands out a fresh unguessable st_ token per call, with core client', async () => {
    const first = await client.sessionTokens.create();
    const second = await client.sessionTokens.create();
    expect(first.sessionToken).toMatch(/^st_[A-Za-z0-9_-]{32}$/);
    expect(second.sessionToken).not.toBe(first.sessionToken);
    expect(client.elementScriptUrl).toBe(`${sb.url}/static/v3/js/AsiabillPayment.min.js`);
  });

  it('takes a bodyless POST signed over gateway-no + request-id + request-time, no trailing dot', async () => {
    const requestId = randomUUID();
    const requestTime = String(sb.clock.now());
    const sign = (text: string) => createHmac('sha256', sb.signKey).update(text).digest('hex');
    const head = `${sb.gatewayNo}${requestId}${requestTime}`;
    const ok = await rawCall(sb, {
      method: 'POST',
      path: '/sessionToken',
      requestId,
      requestTime,
      signInfo: sign(head),
    });
    expect(ok.envelope.code).toBe('00000');
    expect((ok.envelope.data as { sessionToken: string }).sessionToken).toMatch(/^st_/);

    const dotted = await rawCall(sb, { method: 'POST', path: '/sessionToken', signInfo: sign(`${head}.`) });
    expect(dotted.envelope).toMatchObject({ code: 'L0005', data: null });
    const wrongKey = await rawCall(sb, { method: 'POST', path: '/sessionToken', signKey: 'not-the-key' });
    expect(wrongKey.envelope).toMatchObject({ code: 'L0005', data: null });
  });

  it('is a POST only', async () => {
    const get = await rawCall(sb, { method: 'GET', path: '/sessionToken' });
    expect(get.envelope.code).not.toBe('00000');
    expect(get.envelope.data).toBeNull();
  });
});
