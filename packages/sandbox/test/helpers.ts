/** Test helpers: raw signed requests (to test what a client cannot send) and a callback receiver. */
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayClient, signRequest } from '@gatewaykit/core';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type Sandbox, startSandbox } from '../src/index.js';

export interface RawCall {
  method?: string;
  path: string;
  pathParams?: Record<string, string>;
  query?: Record<string, string>;
  body?: string;
  gatewayNo?: string;
  signKey?: string;
  requestId?: string;
  requestTime?: number | string;
  /** Replaces the computed sign-info. */
  signInfo?: string;
  omitHeaders?: string[];
}

export interface RawResult {
  status: number;
  envelope: { code: string; message: string; data: unknown };
  headers: Headers;
}

/** A hand-signed request, exactly as the official SDK builds one. */
export async function rawCall(sandbox: Sandbox, call: RawCall): Promise<RawResult> {
  const gatewayNo = call.gatewayNo ?? sandbox.gatewayNo;
  const requestId = call.requestId ?? randomUUID();
  const requestTime = String(call.requestTime ?? sandbox.clock.now());
  const signInfo =
    call.signInfo ??
    signRequest({
      signKey: call.signKey ?? sandbox.signKey,
      gatewayNo,
      requestId,
      requestTime,
      pathParams: call.pathParams,
      query: call.query,
      body: call.body,
    });
  const headers: Record<string, string> = {
    'content-type': 'application/json;charset=UTF-8',
    'gateway-no': gatewayNo,
    'request-id': requestId,
    'request-time': requestTime,
    'sign-info': signInfo,
  };
  for (const name of call.omitHeaders ?? []) delete headers[name];
  const search = call.query ? `?${new URLSearchParams(call.query)}` : '';
  const response = await fetch(`${sandbox.url}/V2022-03${call.path}${search}`, {
    method: call.method ?? (call.body === undefined ? 'GET' : 'POST'),
    headers,
    body: call.body,
  });
  return {
    status: response.status,
    envelope: (await response.json()) as RawResult['envelope'],
    headers: response.headers,
  };
}

export interface ReceivedCallback {
  headers: IncomingHttpHeaders;
  rawBody: string;
}

export interface CallbackReceiver {
  url: string;
  received: ReceivedCallback[];
  /** Decides the answer body per call (index from 0); default always `success`. */
  respond: (index: number, callback: ReceivedCallback) => string | Promise<string>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<CallbackReceiver> {
  const receiver: CallbackReceiver = {
    url: '',
    received: [],
    respond: () => 'success',
    close: async () => {},
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const callback = { headers: request.headers, rawBody: Buffer.concat(chunks).toString('utf8') };
      const index = receiver.received.push(callback) - 1;
      const answer = await receiver.respond(index, callback);
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

export interface SandboxWithReceiver {
  sb: Sandbox;
  client: GatewayClient;
  receiver: CallbackReceiver;
}

/**
 * One sandbox, a client of it and a callback receiver for the whole test file, reset before each test.
 * The fields are set in beforeAll: read them inside tests, not at module level.
 */
export function useSandboxWithReceiver(): SandboxWithReceiver {
  const fixture = {} as SandboxWithReceiver;
  beforeAll(async () => {
    fixture.sb = await startSandbox({ port: 0 });
    fixture.client = new GatewayClient({
      gatewayNo: fixture.sb.gatewayNo,
      signKey: fixture.sb.signKey,
      baseUrl: fixture.sb.url,
    });
    fixture.receiver = await startReceiver();
  });
  afterAll(async () => {
    await fixture.client.close();
    await fixture.sb.close();
    await fixture.receiver.close();
  });
  beforeEach(() => {
    fixture.sb.reset();
    fixture.receiver.received.length = 0;
    fixture.receiver.respond = () => 'success';
  });
  return fixture;
}

export const billingDetail = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  phone: '+44 20 7946 0000',
  address: { line1: '12 Analytical Row', city: 'London', country: 'GB', postalCode: 'N1 9GU' },
};

export function card(cardNo: string) {
  return { cardNo, cardExpireMonth: '12', cardExpireYear: '2030', cardSecurityCode: '123' };
}

let orderCounter = 0;
export function orderNo(prefix = 'T'): string {
  orderCounter++;
  return `${prefix}${Date.now()}-${orderCounter}`;
}

/** A confirmCharge body with raw card data. */
export function chargeBody(
  fields: { orderNo?: string; cardNo?: string; callbackUrl?: string; returnUrl?: string } = {},
) {
  return {
    orderNo: fields.orderNo ?? orderNo(),
    orderAmount: '10.50',
    orderCurrency: 'USD',
    customerIp: '203.0.113.7',
    returnUrl: fields.returnUrl ?? 'https://shop.example/return?cart=42',
    webSite: 'https://shop.example',
    ...(fields.callbackUrl ? { callbackUrl: fields.callbackUrl } : {}),
    customerPaymentMethod: { billingDetail, card: card(fields.cardNo ?? '4242424242424242') },
  };
}

export function hostedBody(fields: {
  orderNo?: string;
  paymentMethod?: string;
  callbackUrl?: string;
  returnUrl?: string;
}) {
  return {
    orderNo: fields.orderNo ?? orderNo('H'),
    orderAmount: '25.00',
    orderCurrency: 'EUR',
    paymentMethod: fields.paymentMethod ?? 'Credit Card',
    returnUrl: fields.returnUrl ?? 'https://shop.example/return?cart=7',
    ...(fields.callbackUrl ? { callbackUrl: fields.callbackUrl } : {}),
    billingAddress: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace', country: 'DE' },
  };
}

/** Posts a hosted page form the way a script would, without following the redirect. */
export async function submitPage(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', body: new URLSearchParams(fields), redirect: 'manual' });
}

export interface HostAnswer {
  status: number;
  body: string;
}

/** One request with the Host header set by hand, as fetch cannot. */
export function sendWithHost(
  url: string,
  path: string,
  host: string,
  method = 'GET',
  body?: string,
  extraHeaders: Record<string, string> = {},
): Promise<HostAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        hostname,
        port,
        path,
        method,
        headers: {
          host,
          // What a rebinding page's own fetch carries: to the browser it is same-origin.
          'sec-fetch-site': 'same-origin',
          origin: `http://${host}`,
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
          ...extraHeaders,
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
