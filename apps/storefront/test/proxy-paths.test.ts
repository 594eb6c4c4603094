/**
 * The storefront's same-origin proxies forward the stores' shopper APIs only: a QA browser logged
 * into a store's admin must not lend its admin cookies to scripts on the storefront's origin (found
 * by review). Real HTTP to the running storefront and both stores.
 */
import { get as httpGet } from 'node:http';
import { describe, expect, inject, it } from 'vitest';

const storefront = () => inject('storefrontUrl');

/** A GET of `path` exactly as written: no client resolves its dot segments before sending. */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(storefront());
  return new Promise((resolve, reject) => {
    const request = httpGet({ host: hostname, port, path }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
  });
}

describe("the storefront's proxies to the stores", () => {
  it('forward the shopper APIs: Medusa /store and /auth/customer, Vendure /shop-api', async () => {
    const regions = await fetch(`${storefront()}/medusa-api/store/regions`, {
      headers: { 'x-publishable-api-key': inject('publishableKey') },
    });
    expect(regions.status).toBe(200);
    expect(((await regions.json()) as { regions: unknown[] }).regions.length).toBeGreaterThan(0);
    const login = await fetch(`${storefront()}/medusa-api/auth/customer/emailpass`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'nobody@example.com', password: 'wrong-password' }),
    });
    expect(login.status).toBe(401);
    const shop = await fetch(`${storefront()}/vendure-api/shop-api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ activeChannel { code } }' }),
    });
    expect(shop.status).toBe(200);
    expect(await shop.json()).toMatchObject({ data: { activeChannel: { code: expect.any(String) } } });
  });

  it('attack: never forward the admin APIs, webhooks or anything else of the stores', async () => {
    for (const path of [
      '/medusa-api/admin/users/me',
      '/medusa-api/auth/user/emailpass',
      '/medusa-api/hooks/gatewaykit/callback',
      '/medusa-api/app',
      '/medusa-api/storefoo',
      '/medusa-api/store/../admin/users/me',
      '/vendure-api/admin-api',
      '/vendure-api/shop-api-x',
      '/vendure-api/gatewaykit/callback',
      // The prefix glued to the store's path: the proxy takes any URL starting with its prefix.
      '/medusa-apiadmin/users/me',
      '/medusa-apiauth/user/emailpass',
      '/vendure-apiadmin-api',
    ]) {
      const answer = await fetch(`${storefront()}${path}`, { redirect: 'manual' });
      expect(answer.status, path).toBe(404);
      expect(await answer.text(), path).toBe('Not a shopper API path');
    }
    // Paths the proxy resolves to another (dot segments, a backslash), sent as written (fetch would
    // resolve them before sending): `/store/../admin/users/me` reached Medusa's admin; refused now.
    for (const path of [
      '/medusa-api/../admin/users/me',
      '/medusa-api/%2e%2e/admin/users/me',
      '/medusa-api/store/../admin/users/me',
      '/medusa-api/store/%2E%2e/admin/users/me',
      '/medusa-api/store/./x',
      '/vendure-api/shop-api/../admin-api',
      // A backslash is a slash to the proxy's URL parser.
      '/medusa-api/store/..\\admin/users/me',
      '/medusa-api/store/%2E%2E\\admin/users/me',
    ]) {
      const answer = await rawGet(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).toBe('Not a shopper API path');
    }
    // Straight to the store, the admin API is there: the proxy is what refuses it.
    expect((await fetch(`${inject('medusaUrl')}/admin/users/me`)).status).toBe(401);
  });
});
