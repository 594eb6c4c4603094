/**
 * The storefront's same-origin proxies forward the stores' shopper APIs only: a QA browser logged
 * into a store's admin must not lend its admin cookies to scripts on the storefront's origin (found
 * by review). Real HTTP to the running storefront and both stores.
 */
import { describe, expect, inject, it } from 'vitest';

const storefront = () => inject('storefrontUrl');

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
    // An encoded climb out of the prefix is the storefront's own page (vite resolves it first), not a store's.
    const outOfPrefix = await fetch(`${storefront()}/medusa-api/%2e%2e/admin/users/me`);
    expect(outOfPrefix.headers.get('content-type')).toMatch(/^text\/html/);
    // An encoded climb out of /store reaches Medusa as a store path it does not have, not its admin.
    const climbed = await fetch(`${storefront()}/medusa-api/store/%2e%2e/admin/users/me`);
    expect(climbed.status).toBe(404);
    // Straight to the store, the admin API is there: the proxy is what refuses it.
    expect((await fetch(`${inject('medusaUrl')}/admin/users/me`)).status).toBe(401);
  });
});
