/**
 * DNS rebinding: a page on a domain pointed at 127.0.0.1 is same-origin with the sandbox to the browser,
 * but the browser still names that domain in `Host`. The sandbox answers its browser-facing parts under
 * its own names only, the signed API included: the demo merchant's key is public, so a page can sign.
 */
import { randomUUID } from 'node:crypto';
import { signRequest } from '@gatewaykit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { FRAME_PAGE_PATH } from '../src/element/frame-page.js';
import { ELEMENT_METHODS_PATH } from '../src/element/method-endpoint.js';
import { type Sandbox, startSandbox } from '../src/index.js';
import { DEFAULT_MERCHANT } from '../src/server.js';
import { sendWithHost as send } from './helpers.js';

let sb: Sandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

describe('the host names the sandbox answers under', () => {
  it('attack: a rebinding page under another domain can neither read nor drive the sandbox', async () => {
    sb = await startSandbox({ port: 0 });
    const port = new URL(sb.url).port;
    const evil = `rebind.evil.example:${port}`;
    for (const path of ['/', '/_sandbox/', '/_sandbox/state', '/pay/checkout/ord_1', FRAME_PAGE_PATH]) {
      const answer = await send(sb.url, path, evil);
      expect(answer.status, path).toBe(403);
      expect(answer.body, path).toContain('Host rebind.evil.example is not one of its names');
    }
    const drive = await send(sb.url, '/_sandbox/chaos', evil, 'POST', JSON.stringify({ drop: true }));
    expect(drive.status).toBe(403);
    expect(sb.state().chaos).toEqual({});
    // Userinfo tricks do not smuggle an allowed name in.
    expect((await send(sb.url, '/_sandbox/state', `evil.example@127.0.0.1:${port}`)).status).toBe(403);
  });

  it('answers under IP addresses, localhost, its public URL and the names it was given', async () => {
    sb = await startSandbox({
      port: 0,
      publicUrl: 'https://Pay.Sandbox.Test/',
      allowedHosts: ['qa-box:8600', ' Shop.Internal '],
    });
    const port = new URL(sb.url).port;
    for (const host of [
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      `10.0.0.7:${port}`,
      `localhost:${port}`,
      `localhost.:${port}`,
      'pay.sandbox.test.',
      `storefront.localhost:${port}`,
      'pay.sandbox.test',
      `qa-box:${port}`,
      'shop.internal',
    ]) {
      const answer = await send(sb.url, '/_sandbox/state', host);
      expect(answer.status, host).toBe(200);
    }
    expect((await send(sb.url, '/_sandbox/chaos', `qa-box:${port}`, 'POST', '{"drop":true}')).status).toBe(
      200,
    );
    expect(sb.state().chaos).toEqual({ drop: true });
  });

  it('attack: a rebinding page signs with the public demo key and calls the gateway API', async () => {
    sb = await startSandbox({ port: 0 });
    const port = new URL(sb.url).port;
    const evil = `rebind.evil.example:${port}`;
    // The default merchant's key is public, so the page's script can sign like any store.
    const signed = (path: string, body?: string) => {
      const requestId = randomUUID();
      const requestTime = String(Date.now());
      const gatewayNo = DEFAULT_MERCHANT.gatewayNo;
      return send(sb?.url ?? '', `/V2022-03${path}`, evil, body === undefined ? 'GET' : 'POST', body, {
        'content-type': 'application/json;charset=UTF-8',
        'gateway-no': gatewayNo,
        'request-id': requestId,
        'request-time': requestTime,
        'sign-info': signRequest({
          signKey: DEFAULT_MERCHANT.signKey,
          gatewayNo,
          requestId,
          requestTime,
          body,
        }),
      });
    };
    const customer = await signed('/customers', '{"email":"victim@example.com"}');
    expect(customer.status).toBe(403);
    expect(customer.body).toContain('Host rebind.evil.example is not one of its names');
    expect(sb.state().customers).toHaveLength(0);
    const token = await signed('/session_tokens', '{}');
    expect(token.status).toBe(403);
    // The card element's own endpoint sits under the API prefix too.
    expect((await send(sb.url, ELEMENT_METHODS_PATH, evil, 'POST', '{}')).status).toBe(403);
  });

  it('the signed gateway API answers a store under the names the sandbox was given', async () => {
    sb = await startSandbox({ port: 0, allowedHosts: ['gateway.internal'] });
    const port = new URL(sb.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'gateway.internal']) {
      const answer = await send(sb.url, '/V2022-03/customers', host, 'POST', '{}');
      expect(answer.status, host).toBe(200);
      // Unsigned, so the gateway's own refusal, not the host check's.
      expect(JSON.parse(answer.body), host).toHaveProperty('code');
    }
  });
});
