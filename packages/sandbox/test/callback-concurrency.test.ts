/** Chaos `copies: N` must deliver the N copies at the same time, not one after another. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayClient, verifyCallback } from '@gatewaykit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';
import { chargeBody } from './helpers.js';

const HOLD_MS = 200;

let sb: Sandbox | undefined;
let client: GatewayClient | undefined;
let server: Server | undefined;

afterEach(async () => {
  await client?.close();
  await sb?.close();
  if (server) {
    const closing = server;
    closing.closeAllConnections();
    await new Promise<void>((resolve) => closing.close(() => resolve()));
  }
  sb = undefined;
  client = undefined;
  server = undefined;
});

describe('chaos copies', () => {
  it('has all 3 copies in flight at once, each correctly signed', async () => {
    const received: { headers: IncomingHttpHeaders; rawBody: string }[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    // Holds every callback before answering, so copies sent one after another never overlap.
    server = createServer((request, response) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ headers: request.headers, rawBody: Buffer.concat(chunks).toString('utf8') });
        setTimeout(() => {
          inFlight--;
          response.writeHead(200, { 'content-type': 'text/plain' });
          response.end('success');
        }, HOLD_MS);
      });
    });
    const listening = server;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    const callbackUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/callback`;

    sb = await startSandbox({ port: 0 });
    client = new GatewayClient({ gatewayNo: sb.gatewayNo, signKey: sb.signKey, baseUrl: sb.url });
    sb.setChaos({ copies: 3 });
    const body = chargeBody({ callbackUrl });
    const charge = await client.charges.confirm(body);
    expect(charge.orderStatus).toBe('success');

    const deliveries = await sb.waitForCallbacks(
      (all) => all.length === 3 && all.every((delivery) => delivery.state === 'delivered'),
      4_000,
    );
    expect(deliveries.every((delivery) => delivery.attempts.length === 1)).toBe(true);
    expect(received).toHaveLength(3);
    expect(maxInFlight).toBeGreaterThanOrEqual(3);

    const verified = received.map((callback) =>
      verifyCallback({
        rawBody: callback.rawBody,
        headers: callback.headers,
        gatewayNo: sb?.gatewayNo ?? '',
        signKey: sb?.signKey ?? '',
      }),
    );
    for (const event of verified) {
      expect(event).toMatchObject({
        type: 'transaction.success',
        data: { orderNo: body.orderNo, tradeNo: charge.tradeNo, orderStatus: 'success' },
      });
    }
    // Each copy is its own signed request, not one request seen three times.
    expect(new Set(verified.map((event) => event.requestId)).size).toBe(3);
  });
});
