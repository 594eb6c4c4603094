/**
 * DNS rebinding: a page on a domain pointed at 127.0.0.1 is same-origin with the sandbox to the browser,
 * but the browser still names that domain in `Host`. The sandbox answers its browser-facing parts under
 * its own names only; the signed API answers under any name.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FRAME_PAGE_PATH } from '../src/element/frame-page.js';
import { type Sandbox, startSandbox } from '../src/index.js';
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

  it('the signed gateway API answers under any name: a page cannot sign, a store may use any name', async () => {
    sb = await startSandbox({ port: 0 });
    const answer = await send(sb.url, '/V2022-03/customers', 'gateway.internal', 'POST', '{}');
    expect(answer.status).toBe(200);
    // Unsigned, so the gateway's own refusal, not the host check's.
    expect(answer.body).not.toContain('host names');
    expect(JSON.parse(answer.body)).toHaveProperty('code');
  });
});
