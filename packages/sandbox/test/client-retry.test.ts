/**
 * The retry policy through the real path: a POST that reached the sandbox and timed out must not be
 * sent again, or a slow gateway turns one createCustomer into several customers.
 */
import { GatewayClient, GatewayTimeoutError } from '@gatewaykit/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';

const TIMEOUT_MS = 300;
// undici runs headersTimeout on its coarse timers (a 300 ms timeout fires after about 1 s), so the
// latency is well past that, not just past TIMEOUT_MS.
const LATENCY_MS = 2_500;

let sb: Sandbox;
let client: GatewayClient;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  client = new GatewayClient({
    gatewayNo: sb.gatewayNo,
    signKey: sb.signKey,
    baseUrl: sb.url,
    timeoutMs: TIMEOUT_MS,
    retryBaseDelayMs: 50,
  });
});
afterAll(async () => {
  await client.close();
  await sb.close();
});

describe('createCustomer slower than the client timeout', () => {
  it('is sent once and rejected: one customer, one logged request', async () => {
    // 'always', so a retry would time out as well and the client must still reject.
    const rule = sb.addFault({ route: 'createCustomer', kind: 'latency', ms: LATENCY_MS, times: 'always' });
    const outcome = await client.customers.create({ email: 'slow@example.com' }).then(
      (customer) => ({ resolved: customer }),
      (error: unknown) => ({ rejected: error }),
    );
    expect(outcome).not.toHaveProperty('resolved');
    const error = (outcome as { rejected: unknown }).rejected;
    expect(error).toBeInstanceOf(GatewayTimeoutError);
    // The caller must not blindly send it again either: the customer may exist.
    expect((error as GatewayTimeoutError).retryable).toBe(false);
    // It gave up at the first timeout instead of waiting out the latency: the sandbox had not logged
    // (finished) the request yet when the client rejected.
    expect(sb.requests().filter((entry) => entry.operation === 'createCustomer')).toEqual([]);
    expect(sb.state().customers).toEqual([]);

    // Hits count arrivals, so retries already sent are counted even while the sandbox still sleeps.
    expect(sb.faults().find((entry) => entry.id === rule.id)?.hits).toBe(1);
    // The sandbox finishes the work after the client left; wait for it before reading the state.
    await vi.waitFor(
      () => expect(sb.requests().filter((entry) => entry.operation === 'createCustomer')).toHaveLength(1),
      { timeout: LATENCY_MS + 1_000, interval: 25 },
    );
    expect(sb.requests().filter((entry) => entry.operation === 'createCustomer')).toMatchObject([
      { code: '00000', fault: 'latency' },
    ]);
    expect(sb.state().customers).toHaveLength(1);
    expect(sb.state().customers[0]).toMatchObject({ email: 'slow@example.com' });
  });
});
