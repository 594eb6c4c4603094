/**
 * A production start (NODE_ENV=production) of the demo store: its public demo defaults (superadmin
 * password, cookie secret, gateway keys, any-origin CORS) are refused, and with the variables set the
 * APIs answer only the listed storefronts and refuse cross-site form posts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Sandbox, startSandbox } from '@gatewaykit/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConfig, settingsFromEnv } from '../src/config';
import { DEMO_MERCHANTS } from '../src/gateways';
import { loginAdmin } from '../src/graphql-client';
import { PRODUCTION_VARIABLES } from '../src/production-env';
import { type ServerProcess, startServerProcess } from './support/server-process';
import { copyTemplateDatabase, type TestDatabase } from './support/test-database';

const STOREFRONT = 'https://shop.example';

describe('the settings of a production start', () => {
  it('names every variable still on its public demo default', () => {
    expect(() => settingsFromEnv({ NODE_ENV: 'production' })).toThrow(
      `NODE_ENV=production: set ${PRODUCTION_VARIABLES.join(', ')}; the demo defaults are public`,
    );
    // Blank is not set.
    expect(() =>
      settingsFromEnv({ NODE_ENV: 'production', ...productionEnv('http://127.0.0.1:9'), COOKIE_SECRET: ' ' }),
    ).toThrow('set COOKIE_SECRET;');
  });

  it('takes the secrets and storefront origins from the environment', () => {
    const config = buildConfig(
      settingsFromEnv({ NODE_ENV: 'production', ...productionEnv('http://127.0.0.1:9') }),
    );
    expect(config.apiOptions.cors).toEqual({
      origin: [STOREFRONT, 'https://www.shop.example'],
      credentials: true,
    });
    expect(config.apiOptions.csrfPrevention).toBe(true);
    expect(config.authOptions.superadminCredentials).toEqual({
      identifier: 'owner@shop.example',
      password: 'a-long-admin-password',
    });
    expect(config.authOptions.cookieOptions?.secret).toBe('a-long-cookie-secret');
  });

  it('attack: a production start does not take raw card numbers unless asked to (PCI stores only)', () => {
    const env = { NODE_ENV: 'production', ...productionEnv('http://127.0.0.1:9') };
    expect(settingsFromEnv(env).allowRawCardData).toBe(false);
    expect(settingsFromEnv({ ...env, GATEWAYKIT_ALLOW_RAW_CARD_DATA: '1' }).allowRawCardData).toBe(true);
    expect(settingsFromEnv({}).allowRawCardData).toBe(true);
    expect(settingsFromEnv({ GATEWAYKIT_ALLOW_RAW_CARD_DATA: 'false' }).allowRawCardData).toBe(false);
  });

  it('attack: a production start refuses the benchmark and test switches (a method that settles without money, a failing order or refund process)', () => {
    const env = { NODE_ENV: 'production', ...productionEnv('http://127.0.0.1:9') };
    expect(() => settingsFromEnv({ ...env, GATEWAYKIT_BENCH: '1' })).toThrow(
      'NODE_ENV=production: unset GATEWAYKIT_BENCH;',
    );
    expect(() => settingsFromEnv({ ...env, GATEWAYKIT_TEST_FAIL_AFTER_SETTLE_CITY: 'Throwington' })).toThrow(
      'unset GATEWAYKIT_TEST_FAIL_AFTER_SETTLE_CITY;',
    );
    // A refund process that throws once a refund with this reason is made: the admin's refund rolls back.
    expect(() => settingsFromEnv({ ...env, GATEWAYKIT_TEST_FAIL_AFTER_REFUND_REASON: 'roll back' })).toThrow(
      'unset GATEWAYKIT_TEST_FAIL_AFTER_REFUND_REASON;',
    );
    expect(settingsFromEnv(env).benchBaseline).toBe(false);
    // Outside production both stay available to the benchmarks and tests.
    expect(settingsFromEnv({ GATEWAYKIT_BENCH: '1' }).benchBaseline).toBe(true);
  });

  it('the demo keeps its defaults outside production', () => {
    const config = buildConfig(settingsFromEnv({}));
    expect(config.apiOptions.cors).toBeUndefined();
    expect(config.authOptions.superadminCredentials?.identifier).toBe('superadmin');
  });
});

describe('a production start of the real store', () => {
  let sandbox: Sandbox;
  let dir: string;
  let server: ServerProcess | undefined;
  const databases: TestDatabase[] = [];
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, merchants: [DEMO_MERCHANTS.main, DEMO_MERCHANTS.jp] });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gk-vendure-production-'));
  });
  afterAll(async () => {
    await server?.stop();
    for (const database of databases) await database.close();
    await sandbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The store's own copy of the populated database, in folder `name`. */
  const database = async (name: string) => {
    const folder = path.join(dir, name);
    fs.mkdirSync(folder);
    const copy = await copyTemplateDatabase(folder);
    databases.push(copy);
    return copy.env;
  };

  it('is refused on the demo defaults, naming what to set, before it serves anything', async () => {
    const refused = startServerProcess({
      NODE_ENV: 'production',
      ...(await database('refused')),
      GATEWAY_BASE_URL: sandbox.url,
    });
    await expect(refused).rejects.toThrow(
      'NODE_ENV=production: set SUPERADMIN_PASSWORD, COOKIE_SECRET, CORS_ORIGINS, GATEWAY_SIGN_KEY, GATEWAY_JP_SIGN_KEY;',
    );
  });

  it('answers only the listed storefronts, refuses a cross-site form post, and sets itself up as the configured superadmin', async () => {
    server = await startServerProcess({
      NODE_ENV: 'production',
      ...(await database('production')),
      ...productionEnv(sandbox.url),
    });
    const shopApi = `${server.baseUrl}/shop-api`;
    const preflight = (origin: string) =>
      fetch(shopApi, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
    expect((await preflight(STOREFRONT)).headers.get('access-control-allow-origin')).toBe(STOREFRONT);
    expect((await preflight('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull();

    // A page elsewhere can post a form (text/plain, no preflight) that carries a login mutation.
    const formPost = await fetch(shopApi, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: 'https://evil.example' },
      body: JSON.stringify({ query: 'mutation { login(username: "a@b.c", password: "x") { __typename } }' }),
    });
    expect(formPost.status).toBe(400);
    expect(await formPost.text()).toContain('Cross-Site Request Forgery');

    // The store's own setup logged in as the configured superadmin; so can the merchant.
    const admin = await loginAdmin(
      `${server.baseUrl}/admin-api`,
      'owner@shop.example',
      'a-long-admin-password',
    );
    const methods = await admin.query<{ paymentMethods: { items: { code: string }[] } }>(
      '{ paymentMethods { items { code } } }',
    );
    expect(methods.paymentMethods.items.map((method) => method.code)).toContain('gatewaykit-card');
  });
});

function productionEnv(gatewayUrl: string): Record<string, string> {
  return {
    SUPERADMIN_USERNAME: 'owner@shop.example',
    SUPERADMIN_PASSWORD: 'a-long-admin-password',
    COOKIE_SECRET: 'a-long-cookie-secret',
    CORS_ORIGINS: `${STOREFRONT}, https://www.shop.example`,
    GATEWAY_BASE_URL: gatewayUrl,
    GATEWAY_SIGN_KEY: DEMO_MERCHANTS.main.signKey,
    GATEWAY_JP_SIGN_KEY: DEMO_MERCHANTS.jp.signKey,
  };
}
