/** The gateway's L-codes as core's GatewayClient sees them: each must arrive as its own error class. */
import {
  GatewayApiError,
  GatewayAuthenticationError,
  GatewayClient,
  GatewayClockSkewError,
  GatewayDuplicateRequestError,
} from '@gatewaykit/core';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';

let sb: Sandbox;
const clients: GatewayClient[] = [];
const agents: Agent[] = [];

beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
  sb.reset();
});
afterAll(async () => {
  await sb.close();
});

function clientWith(overrides: { gatewayNo?: string; signKey?: string; dispatcher?: Dispatcher } = {}) {
  const client = new GatewayClient({
    gatewayNo: overrides.gatewayNo ?? sb.gatewayNo,
    signKey: overrides.signKey ?? sb.signKey,
    baseUrl: sb.url,
    ...(overrides.dispatcher ? { dispatcher: overrides.dispatcher } : {}),
  });
  clients.push(client);
  return client;
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );

const createCustomerLog = () => sb.requests().filter((entry) => entry.operation === 'createCustomer');

describe('authentication', () => {
  it('L0001: an unknown gateway number is an authentication error', async () => {
    const error = await failure(clientWith({ gatewayNo: '99999999' }).customers.create({}));
    expect(error).toBeInstanceOf(GatewayAuthenticationError);
    expect((error as GatewayAuthenticationError).code).toBe('L0001');
    expect(sb.state().customers).toHaveLength(0);
  });

  it('L0005: a wrong sign key is an authentication error, not retried', async () => {
    const error = await failure(clientWith({ signKey: 'not-the-sandbox-key' }).customers.create({}));
    expect(error).toBeInstanceOf(GatewayAuthenticationError);
    expect((error as GatewayAuthenticationError).code).toBe('L0005');
    expect(sb.state().customers).toHaveLength(0);
    expect(createCustomerLog().map((entry) => entry.code)).toEqual(['L0005']);
  });

  it('the right credentials pass the same checks', async () => {
    // Guards the two tests above: a sandbox refusing everything would pass them too.
    expect((await clientWith().customers.create({})).customerId).toMatch(/^cus_\d{19}$/);
  });
});

describe('L0004 duplicate request-id', () => {
  it('a request-id reused within 30 minutes is a GatewayDuplicateRequestError', async () => {
    const agent = new Agent();
    agents.push(agent);
    let firstHeaders: Record<string, string> | undefined;
    // The client signs a fresh request-id per call; this sends every later call with the first call's
    // headers (request-id, request-time and the sign-info over them). Same body, so the signature holds.
    const replaying = agent.compose((dispatch) => (options, handler) => {
      const headers = options.headers as Record<string, string>;
      firstHeaders ??= { ...headers };
      return dispatch({ ...options, headers: { ...firstHeaders } }, handler);
    });
    const client = clientWith({ dispatcher: replaying });
    const input = { email: 'replay@example.com' };

    expect((await client.customers.create(input)).customerId).toMatch(/^cus_/);
    const error = await failure(client.customers.create(input));
    expect(error).toBeInstanceOf(GatewayDuplicateRequestError);
    expect((error as GatewayDuplicateRequestError).code).toBe('L0004');

    const log = createCustomerLog();
    expect(log.map((entry) => entry.code)).toEqual(['00000', 'L0004']);
    expect(log[1]?.requestId).toBe(log[0]?.requestId);
    expect(sb.state().customers).toHaveLength(1);
  });
});

describe('L0003 clock skew', () => {
  it('request-time more than 10 minutes off the sandbox clock, either way, is a GatewayClockSkewError', async () => {
    const client = clientWith();
    for (const offsetMs of [11 * 60_000, -11 * 60_000]) {
      sb.setClock({ offsetMs });
      const error = await failure(client.customers.create({}));
      expect(error).toBeInstanceOf(GatewayClockSkewError);
      expect(error).toBeInstanceOf(GatewayApiError);
      expect((error as GatewayClockSkewError).code).toBe('L0003');
    }
    expect(sb.state().customers).toHaveLength(0);

    // Inside the window the same client is accepted: the class above comes from the skew, not the client.
    sb.setClock({ offsetMs: 9 * 60_000 });
    expect((await client.customers.create({})).customerId).toMatch(/^cus_/);
  });
});
