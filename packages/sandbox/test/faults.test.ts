/** Transport faults through core's client: what the client sees, and what the sandbox recorded. */
import { GatewayClient, isGatewayError, UnknownOutcomeError } from '@gatewaykit/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';
import { type CallbackReceiver, chargeBody, rawCall, startReceiver } from './helpers.js';

let sb: Sandbox;
let client: GatewayClient;
/** Short per-attempt timeout (1 s), only for the hang faults. */
let impatient: GatewayClient;
let receiver: CallbackReceiver;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  client = new GatewayClient({ gatewayNo: sb.gatewayNo, signKey: sb.signKey, baseUrl: sb.url });
  impatient = new GatewayClient({
    gatewayNo: sb.gatewayNo,
    signKey: sb.signKey,
    baseUrl: sb.url,
    timeoutMs: 1000,
  });
  receiver = await startReceiver();
});
afterAll(async () => {
  await client.close();
  await impatient.close();
  await sb.close();
  await receiver.close();
});
beforeEach(() => {
  sb.reset();
  receiver.received.length = 0;
});

const ordersOf = (orderNo: string) => sb.state().orders.filter((order) => order.orderNo === orderNo);

describe('commit-then-drop', () => {
  it('records the charge and sends its callback, but the client only learns the outcome is unknown', async () => {
    sb.addFault({ route: 'confirmCharge', kind: 'commit-then-drop' });
    const body = chargeBody({ callbackUrl: receiver.url });
    const error = await client.charges.confirm(body).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnknownOutcomeError);
    expect(ordersOf(body.orderNo)).toMatchObject([{ orderStatus: 'success' }]);
    await sb.waitForCallbacks((all) =>
      all.some((delivery) => delivery.orderNo === body.orderNo && delivery.state === 'delivered'),
    );
    expect(receiver.received[0]?.rawBody).toContain(body.orderNo);
    // The retry the merchant must not make as a new payment is refused anyway.
    const again = await client.charges.confirm(body).catch((caught: unknown) => caught);
    expect(isGatewayError(again) && again.code).toBe('I0061');
  });
});

describe('unlisted: the read side behind the writes', () => {
  it('a trade the gateway answered is missing from its record reads, then back once the fault is used up', async () => {
    const body = chargeBody({ callbackUrl: receiver.url });
    const charged = await client.charges.confirm(body);
    expect(charged.tradeNo).toBeTruthy();
    const window = {
      startTime: '2000-01-01T00:00:00',
      endTime: '2100-01-01T00:00:00',
      orderNo: body.orderNo,
    };
    sb.addFault({ route: 'listTransactions', kind: 'unlisted' });
    sb.addFault({ route: 'retrieveTransaction', kind: 'unlisted' });
    expect(await client.transactions.list(window)).toMatchObject({ list: [], page: { total: 0 } });
    const missing = await client.transactions.retrieve(charged.tradeNo!).catch((caught: unknown) => caught);
    expect(isGatewayError(missing) && missing.code).toBe('P0002');
    expect(sb.requests().at(-1)?.fault).toBe('unlisted');
    // Still there, and listed again.
    expect((await client.transactions.list(window)).list).toMatchObject([{ tradeNo: charged.tradeNo }]);
    expect(ordersOf(body.orderNo)).toHaveLength(1);
  });

  it('is refused on anything but a record read, and still checks the signature', async () => {
    expect(() => sb.addFault({ route: 'confirmCharge', kind: 'unlisted' })).toThrow(/record read/);
    expect(() => sb.addFault({ route: '*', kind: 'unlisted' })).toThrow(/record read/);
    sb.addFault({ route: 'listTransactions', kind: 'unlisted' });
    const forged = new GatewayClient({ gatewayNo: sb.gatewayNo, signKey: 'not-the-key', baseUrl: sb.url });
    const refused = await forged.transactions
      .list({ startTime: '2000-01-01T00:00:00', endTime: '2100-01-01T00:00:00' })
      .catch((caught: unknown) => caught);
    await forged.close();
    expect(isGatewayError(refused) && refused.code).toBe('L0005');
  });
});

describe('transport faults', () => {
  it('reset before the response: unknown outcome for a charge, nothing recorded', async () => {
    sb.addFault({ route: '/confirmCharge', kind: 'reset' });
    const body = chargeBody();
    expect(await client.charges.confirm(body).catch((caught: unknown) => caught)).toBeInstanceOf(
      UnknownOutcomeError,
    );
    expect(ordersOf(body.orderNo)).toHaveLength(0);
  });

  it('hang: a charge times out as unknown; a read is retried and succeeds', async () => {
    sb.addFault({ route: 'confirmCharge', kind: 'hang' });
    expect(await impatient.charges.confirm(chargeBody()).catch((caught: unknown) => caught)).toBeInstanceOf(
      UnknownOutcomeError,
    );
    const customer = await client.customers.create({ email: 'h@example.com' });
    sb.addFault({ route: 'retrieveCustomer', kind: 'hang', times: 1 });
    expect((await impatient.customers.retrieve(customer.customerId)).customerId).toBe(customer.customerId);
    expect(
      sb
        .requests()
        .filter((entry) => entry.operation === 'retrieveCustomer')
        .map((entry) => entry.fault),
    ).toEqual(['hang', undefined]);
  });

  it('5xx: a read retries past it; a charge gets an unknown outcome and nothing is recorded', async () => {
    const customer = await client.customers.create({ email: 'x@example.com' });
    sb.addFault({ route: 'GET /customers/{customerId}', kind: '5xx', times: 2, status: 502 });
    expect((await client.customers.retrieve(customer.customerId)).customerId).toBe(customer.customerId);
    expect(
      sb
        .requests()
        .filter((entry) => entry.fault === '5xx')
        .map((entry) => entry.httpStatus),
    ).toEqual([502, 502]);
    sb.addFault({ route: 'confirmCharge', kind: '5xx' });
    const body = chargeBody();
    expect(await client.charges.confirm(body).catch((caught: unknown) => caught)).toBeInstanceOf(
      UnknownOutcomeError,
    );
    expect(ordersOf(body.orderNo)).toHaveLength(0);
  });

  it('truncated JSON after the work was done: unknown outcome, the charge exists', async () => {
    sb.addFault({ route: 'confirmCharge', kind: 'truncated' });
    const body = chargeBody();
    expect(await client.charges.confirm(body).catch((caught: unknown) => caught)).toBeInstanceOf(
      UnknownOutcomeError,
    );
    expect(ordersOf(body.orderNo)).toHaveLength(1);
  });

  it('latency delays but answers', async () => {
    sb.addFault({ route: 'createCustomer', kind: 'latency', ms: 30 });
    expect((await client.customers.create({ email: 'l@example.com' })).customerId).toMatch(/^cus_/);
    expect(sb.requests().at(-1)?.fault).toBe('latency');
  });

  it('counts: once, N times, always, and clearing', async () => {
    sb.addFault({ route: 'createCustomer', kind: '5xx', times: 2 });
    const codes: (string | number)[] = [];
    for (let index = 0; index < 3; index++) {
      const response = await fetch(`${sb.url}/V2022-03/customers`, { method: 'POST', body: '{}' });
      codes.push(response.status);
    }
    expect(codes).toEqual([503, 503, 200]);
    const always = sb.addFault({ route: '*', kind: '5xx', times: 'always' });
    for (let index = 0; index < 3; index++) {
      expect((await fetch(`${sb.url}/V2022-03/customers/cus_1`)).status).toBe(503);
    }
    expect(sb.faults().find((rule) => rule.id === always.id)?.hits).toBe(3);
    sb.clearFaults();
    expect((await rawCall(sb, { path: '/customers', body: '{}' })).envelope.code).toBe('00000');
  });

  it('is managed through the control API, which refuses unknown routes and kinds', async () => {
    const post = (body: unknown) =>
      fetch(`${sb.url}/_sandbox/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const created = await post({ route: 'localPayment', kind: 'hang', times: 'always' });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ route: 'localPayment', kind: 'hang', remaining: 'always' });
    expect((await post({ route: '/nowhere', kind: 'hang' })).status).toBe(400);
    expect((await post({ route: 'confirmCharge', kind: 'meteor' })).status).toBe(400);
    expect((await post({ route: '/customers', kind: 'reset' })).status).toBe(400);
    expect(((await (await fetch(`${sb.url}/_sandbox/faults`)).json()) as unknown[]).length).toBe(1);
    await fetch(`${sb.url}/_sandbox/faults`, { method: 'DELETE' });
    expect(sb.faults()).toHaveLength(0);
  });
});
