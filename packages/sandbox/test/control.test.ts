/** Control API, request log redaction, clock control and the dashboard. */
import { GatewayClient } from '@gatewaykit/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, type SandboxState, startSandbox } from '../src/index.js';
import { chargeBody, rawCall } from './helpers.js';

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
beforeEach(() => sb.reset());

const json = async <T>(path: string, init?: RequestInit) =>
  (await (await fetch(`${sb.url}${path}`, init)).json()) as T;

describe('control API', () => {
  it('dumps state and resets it', async () => {
    const customer = await client.customers.create({ email: 's@example.com' });
    await client.charges.confirm(chargeBody());
    const state = await json<SandboxState>('/_sandbox/state');
    expect(state.customers.map((entry) => entry.customerId)).toEqual([customer.customerId]);
    expect(state.orders).toHaveLength(1);
    expect(state.merchants).toEqual([{ gatewayNo: '12345678' }]);
    expect(JSON.stringify(state)).not.toContain('sandbox-sign-key');
    await json('/_sandbox/reset', { method: 'POST' });
    const after = await json<SandboxState>('/_sandbox/state');
    expect(after.customers).toHaveLength(0);
    expect(after.orders).toHaveLength(0);
  });

  it('logs requests with card numbers masked and security codes removed', async () => {
    const body = chargeBody({ cardNo: '4000000000009995' });
    body.customerPaymentMethod.card.cardSecurityCode = '4321';
    // A time-based orderNo may hold `4321` by chance (it did once in CI): one without digits.
    body.orderNo = 'LOG-MASKING';
    await client.charges.confirm(body);
    // Even a body that fails to parse is redacted.
    await rawCall(sb, {
      path: '/confirmCharge',
      body: '{"cardNo":"4000000000009995","cardSecurityCode":"4321",',
    });
    const log = await json<{ operation: string; code: string; body: unknown }[]>('/_sandbox/requests');
    expect(log.map((entry) => entry.code)).toEqual(['00000', 'P0001']);
    const text = withoutRandomFields(log);
    expect(text).not.toContain('4000000000009995');
    expect(text).not.toContain('4321');
    expect(text).toContain('400000***9995');
    expect(await json<unknown[]>('/_sandbox/requests?limit=1')).toHaveLength(1);
    expect(log[0]).toMatchObject({
      operation: 'confirmCharge',
      gatewayNo: '12345678',
      contentType: expect.stringContaining('application/json'),
      signInfo: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('keeps card data out of the log when the body or path hides it behind escapes', async () => {
    // Valid JSON whose key names and digits are \u escapes: the sandbox decodes and stores the card.
    const card =
      '{"card\\u004eo":"40000000000\\u0039\\u0039\\u0039\\u0035","cardExpireMonth":"12","cardExpireYear":"2030","cardSecurity\\u0043ode":"4321"}';
    const body = `{"billingDetail":${JSON.stringify(chargeBody().customerPaymentMethod.billingDetail)},"card":${card}}`;
    const created = await rawCall(sb, { path: '/payment_methods', body });
    expect(created.envelope).toMatchObject({ code: '00000', data: { card: { last4: '9995' } } });
    await rawCall(sb, {
      path: '/customers/4000%200000%200000%209995',
      pathParams: { customerId: '4000 0000 0000 9995' },
    });
    const log = await json<{ operation: string; path: string; body?: string }[]>('/_sandbox/requests');
    const text = withoutRandomFields(log);
    expect(text).not.toMatch(/4321|4000000000009995|4000 0000 0000 9995|4000%200000|40000000000\\\\u0039/);
    const loggedMethod = log.find((entry) => entry.operation === 'createPaymentMethod');
    expect(JSON.parse(loggedMethod?.body ?? '{}').card).toMatchObject({
      cardNo: '400000***9995',
      cardSecurityCode: '***',
    });
    expect(log.find((entry) => entry.operation === 'retrieveCustomer')?.path).toContain('400000***9995');
  });

  it('sets and advances the virtual clock; request-time follows it (L0003)', async () => {
    const set = await json<{ offsetMs: number }>('/_sandbox/clock', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ offsetMs: 3_600_000 }),
    });
    expect(set.offsetMs).toBe(3_600_000);
    const advanced = await json<{ offsetMs: number }>('/_sandbox/clock', {
      method: 'POST',
      body: JSON.stringify({ advanceMs: 60_000 }),
    });
    expect(advanced.offsetMs).toBe(3_660_000);
    // The client signs with the real time, an hour behind the sandbox: refused as clock skew.
    const error = await client.customers.create({}).catch((caught: unknown) => caught);
    expect((error as { code?: string }).code).toBe('L0003');
    expect(
      (await fetch(`${sb.url}/_sandbox/clock`, { method: 'POST', body: JSON.stringify({ sideways: 1 }) }))
        .status,
    ).toBe(400);
  });

  it('answers 404 for unknown control routes', async () => {
    expect((await fetch(`${sb.url}/_sandbox/nothing`)).status).toBe(404);
  });
});

describe('dashboard', () => {
  it('lists orders, callbacks and faults, with buttons that post and come back', async () => {
    await client.charges.confirm(chargeBody({ callbackUrl: 'http://127.0.0.1:9/closed' }));
    sb.addFault({ route: 'confirmCharge', kind: 'latency', ms: 10 });
    for (const path of ['/', '/_sandbox/']) {
      const html = await (await fetch(`${sb.url}${path}`)).text();
      expect(html).toContain('Orders');
      expect(html).toContain('Redeliver');
      expect(html).toContain('latency');
      expect(html).toContain('4242424242424242'); // the test card table, not an order's card
    }
    const reset = await fetch(`${sb.url}/_sandbox/reset`, {
      method: 'POST',
      body: new URLSearchParams({}),
      redirect: 'manual',
    });
    expect(reset.status).toBe(303);
    expect(reset.headers.get('location')).toBe('/_sandbox/');
    expect(sb.state().orders).toHaveLength(0);
  });

  it('dashboard forms set chaos, add and remove faults and move the clock', async () => {
    const form = (path: string, fields: Record<string, string>) =>
      fetch(`${sb.url}${path}`, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
    expect(
      (await form('/_sandbox/chaos', { copies: '2', drop: 'true', timing: '', noReturn: 'always' })).status,
    ).toBe(303);
    expect(sb.state().chaos).toEqual({ copies: 2, drop: true, noReturn: 'always' });
    expect(
      (await form('/_sandbox/faults', { route: 'confirmCharge', kind: '5xx', times: '3', ms: '' })).status,
    ).toBe(303);
    const [rule] = sb.faults();
    expect(rule).toMatchObject({ route: 'confirmCharge', kind: '5xx', remaining: 3 });
    expect((await form(`/_sandbox/faults/${rule?.id}`, { _method: 'DELETE' })).status).toBe(303);
    expect(sb.faults()).toHaveLength(0);
    expect((await form('/_sandbox/clock', { advanceMs: '1000' })).status).toBe(303);
    expect(sb.clock.offsetMs).toBe(1000);
  });

  it("attack: another site's page cannot drive the control API with a form; the dashboard's own form can", async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${sb.url}/_sandbox/chaos`, {
        method: 'POST',
        body: new URLSearchParams({ drop: 'true' }),
        headers,
        redirect: 'manual',
      });
    const crossSite: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site', origin: 'http://evil.example' },
      { 'sec-fetch-site': 'same-site', origin: 'http://other.localhost' },
      { origin: 'http://evil.example' },
    ];
    for (const headers of crossSite) {
      const refused = await post(headers);
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain('control API');
    }
    expect(sb.state().chaos).toEqual({});
    // Nor can it frame the dashboard and have its buttons clicked.
    const dashboard = await fetch(`${sb.url}/_sandbox/`);
    expect(dashboard.headers.get('x-frame-options')).toBe('DENY');
    expect(dashboard.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    const own = await post({ 'sec-fetch-site': 'same-origin', origin: sb.url });
    expect(own.status).toBe(303);
    expect(sb.state().chaos).toEqual({ drop: true });
  });
});

/**
 * The request log as text without the fields made of random or time-based digits (signature, request
 * ids and times): a signature may hold `4321` by chance (one CI run in a few hundred), which says
 * nothing about the security code.
 */
function withoutRandomFields(log: object[]): string {
  return JSON.stringify(
    log.map((entry) => {
      const {
        signInfo: _signInfo,
        requestId: _requestId,
        requestTime: _requestTime,
        id: _id,
        at: _at,
        ...rest
      } = entry as Record<string, unknown>;
      return rest;
    }),
  );
}
