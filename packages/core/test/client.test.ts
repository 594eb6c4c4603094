import { createServer } from 'node:net';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  GATEWAY_HOSTS,
  GatewayApiError,
  GatewayAuthenticationError,
  GatewayBadRequestError,
  GatewayClient,
  GatewayClockSkewError,
  GatewayConnectionError,
  GatewayDuplicateRequestError,
  type GatewayError,
  type GatewayLogEvent,
  GatewayTimeoutError,
  GatewayValidationError,
  OPERATIONS,
  type PaymentRequest,
  ResponseValidationError,
  startPayment,
  UnknownOutcomeError,
} from '../src/index.js';
import { buildRequestSignString, hmacSha256Hex } from '../src/signing.js';
import { billingDetail, card, charge } from './support/fixtures.js';
import { envelope, startTestGateway, type TestGateway } from './support/http-gateway.js';

const gatewayNo = '12345678';
const signKey = 'test-sign-key';
const chargeResult = {
  orderNo: 'order_1',
  tradeNo: 'T1',
  orderAmount: '10.00',
  orderCurrency: 'USD',
  orderStatus: 'success',
  orderInfo: 'Approved',
};

let gateway: TestGateway;
let client: GatewayClient;

/** A client of the test gateway with other options; the caller closes it. */
function clientWith(options: Partial<ConstructorParameters<typeof GatewayClient>[0]>) {
  return new GatewayClient({ gatewayNo, signKey, baseUrl: gateway.url, ...options } as ConstructorParameters<
    typeof GatewayClient
  >[0]);
}

/** A client of a local port nobody listens on (connect refused: nothing ever leaves), with its log. */
async function offlineClient() {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as { port: number };
      probe.close(() => resolve(free));
    });
  });
  const events: GatewayLogEvent[] = [];
  const offline = new GatewayClient({
    gatewayNo,
    signKey,
    baseUrl: `http://127.0.0.1:${port}`,
    retryBaseDelayMs: 5,
    logger: (e) => events.push(e),
  });
  return { client: offline, events };
}

/** The error a call rejected with; fails the test if the call resolved. */
function failureOf(call: Promise<unknown>): Promise<GatewayError> {
  return call.then(
    () => expect.unreachable('the call should have failed'),
    (error: unknown) => error as GatewayError,
  );
}

beforeEach(async () => {
  gateway = await startTestGateway();
  client = clientWith({ retryBaseDelayMs: 5, timeoutMs: 2_000 });
});

afterEach(async () => {
  await client.close();
  await gateway.close();
});

describe('wire format', () => {
  it('sends the four headers and a signature over exactly the body it sent', async () => {
    gateway.handle((_req, res) => envelope(res, '00000', chargeResult));
    const result = await client.charges.confirm(charge);
    expect(result).toMatchObject({ orderStatus: 'success', tradeNo: 'T1' });
    const [sent] = gateway.requests;
    expect(sent!.method).toBe('POST');
    expect(sent!.url).toBe('/V2022-03/confirmCharge');
    expect(sent!.headers['gateway-no']).toBe(gatewayNo);
    expect(sent!.headers['content-type']).toBe('application/json;charset=UTF-8');
    expect(String(sent!.headers['request-id']).length).toBeLessThanOrEqual(64);
    // Ends in a letter, and the time has no leading zero: no digit can move between them (docs/signing.md).
    expect(sent!.headers['request-id']).toMatch(/^[0-9A-F-]{36}R$/);
    expect(sent!.headers['request-time']).toMatch(/^[1-9]\d{12}$/);
    const signString = buildRequestSignString({
      gatewayNo,
      requestId: String(sent!.headers['request-id']),
      requestTime: String(sent!.headers['request-time']),
      body: sent!.body,
    });
    expect(sent!.headers['sign-info']).toBe(hmacSha256Hex(signKey, signString));
    expect(JSON.parse(sent!.body)).toEqual(charge);
  });

  it('puts path values in the URL in path order but signs them in name order', async () => {
    gateway.handle((_req, res) => envelope(res, '00000', null));
    expect(await client.paymentMethods.attach('pm_1', 'cus_1')).toBeNull();
    const [sent] = gateway.requests;
    expect(sent!.method).toBe('GET');
    expect(sent!.url).toBe('/V2022-03/payment_methods/pm_1/cus_1/attach');
    const expected = hmacSha256Hex(
      signKey,
      `${gatewayNo}${sent!.headers['request-id']}${sent!.headers['request-time']}.cus_1pm_1`,
    );
    expect(sent!.headers['sign-info']).toBe(expected);
  });

  it('encodes query values on the wire and signs them raw, ordered by key', async () => {
    gateway.handle((_req, res) =>
      envelope(res, '00000', { page: { pageIndex: 1, pageSize: 5, total: 0 }, list: [] }),
    );
    const list = await client.customers.list({ pageSize: 5, pageIndex: 1 });
    expect(list).toEqual({ pageIndex: 1, pageSize: 5, total: 0, list: [] });
    const [sent] = gateway.requests;
    expect(sent!.url).toBe('/V2022-03/customers?pageIndex=1&pageSize=5');
    const expected = hmacSha256Hex(
      signKey,
      `${gatewayNo}${sent!.headers['request-id']}${sent!.headers['request-time']}.15`,
    );
    expect(sent!.headers['sign-info']).toBe(expected);
  });

  it('uses DELETE for customer deletion and accepts 0000 as success too', async () => {
    gateway.handle((_req, res) => envelope(res, '0000', null));
    await expect(client.customers.delete('cus_1')).resolves.toBeNull();
    expect(gateway.requests[0]!.method).toBe('DELETE');
  });
});

describe('environment presets', () => {
  it.each([
    ['test', 'https://testpay.asiabill.com'],
    ['live', 'https://safepay.asiabill.com'],
  ] as const)('%s sends to %s under /V2022-03', async (environment, host) => {
    expect(GATEWAY_HOSTS[environment]).toBe(host);
    const agent = new MockAgent();
    agent.disableNetConnect();
    const seen: string[] = [];
    agent
      .get(host)
      .intercept({ path: '/V2022-03/customers/cus_1', method: 'GET' })
      .reply(200, (options) => {
        seen.push(`${options.origin}${options.path}`);
        return { code: '00000', message: 'success', data: { customerId: 'cus_1' } };
      });
    agent
      .get(host)
      .intercept({ path: '/V2022-03/confirmCharge', method: 'POST' })
      .reply(200, (options) => {
        seen.push(`${options.origin}${options.path}`);
        return { code: '00000', message: 'success', data: chargeResult };
      });
    const preset = new GatewayClient({ gatewayNo, signKey, environment, dispatcher: agent });
    expect(preset.baseUrl).toBe(host);
    await expect(preset.customers.retrieve('cus_1')).resolves.toMatchObject({ customerId: 'cus_1' });
    await expect(preset.charges.confirm(charge)).resolves.toMatchObject({ tradeNo: 'T1' });
    expect(seen).toEqual([`${host}/V2022-03/customers/cus_1`, `${host}/V2022-03/confirmCharge`]);
    agent.assertNoPendingInterceptors();
    await preset.close();
    await agent.close();
  });
});

describe('validation before sending', () => {
  it('names every bad field and sends nothing', async () => {
    const bad = { ...charge, orderNo: '', orderCurrency: 'JPY', orderAmount: '10.50', isMobile: '9' };
    const error = await client.charges.confirm(bad as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayValidationError);
    expect((error as GatewayValidationError).issues.map((i) => i.path).sort()).toEqual([
      'isMobile',
      'orderAmount',
      'orderNo',
    ]);
    expect(gateway.requests).toHaveLength(0);
  });

  it('refuses empty path parameters and bad client options clearly', async () => {
    await expect(client.customers.retrieve('')).rejects.toThrow(/customerId/);
    expect(() => new GatewayClient({ gatewayNo: '', signKey: '', environment: 'test' })).toThrow(
      /gatewayNo.*signKey/s,
    );
    expect(() => new GatewayClient({ gatewayNo: '1', signKey: 'k', environment: 'prod' as 'test' })).toThrow(
      /'test' or 'live'/,
    );
    expect(gateway.requests).toHaveLength(0);
  });
});

describe('gateway error codes', () => {
  it.each([
    ['L0001', GatewayAuthenticationError],
    ['L0005', GatewayAuthenticationError],
    ['L0002', GatewayBadRequestError],
    ['P0001', GatewayBadRequestError],
    ['L0003', GatewayClockSkewError],
    ['L0004', GatewayDuplicateRequestError],
  ])('%s becomes %s and is not retried', async (code, errorClass) => {
    gateway.handle((_req, res) => envelope(res, code, null, 'refused'));
    const error = await client.customers.retrieve('cus_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(errorClass);
    expect((error as { code: string }).code).toBe(code);
    expect(gateway.requests).toHaveLength(1);
  });
});

describe('success codes and the calls that do not move money', () => {
  /** Answers with a raw envelope whose code may be a JSON number. */
  const answerCode = (code: string | number, data: unknown) =>
    gateway.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code, message: 'Success', data }));
    });

  it.each(['0', '000', '0000', '00000', 0])('reads the all-zeros code %j as success', async (code) => {
    answerCode(code, { customerId: 'cus_1' });
    await expect(client.customers.retrieve('cus_1')).resolves.toMatchObject({ customerId: 'cus_1' });
    answerCode(code, { orderNo: 'order_1', orderStatus: 'success' });
    await expect(client.charges.confirm(charge)).resolves.toMatchObject({ orderStatus: 'success' });
  });

  it('keeps the plain code errors for customers and payment methods, whatever their data says', async () => {
    answerCode('S0001', { customerId: 'cus_1', orderStatus: 'success' });
    const read = await failureOf(client.customers.retrieve('cus_1'));
    expect(read).toBeInstanceOf(GatewayApiError);
    expect(read).not.toBeInstanceOf(UnknownOutcomeError);
    expect(read.code).toBe('S0001');
    answerCode('X0042', { customerPaymentMethodId: 'pm_1', orderStatus: 'pending' });
    const created = await failureOf(client.paymentMethods.create({ billingDetail, card }));
    expect(created).toBeInstanceOf(GatewayApiError);
    expect(created).not.toBeInstanceOf(UnknownOutcomeError);
    expect(created.code).toBe('X0042');
  });
});

describe('retry policy of reads', () => {
  it('retries 5xx with a fresh request-id each time, then succeeds', async () => {
    gateway.handle((_req, res, index) => {
      if (index < 2) {
        res.writeHead(502);
        res.end('bad gateway');
      } else envelope(res, '00000', { customerId: 'cus_1' });
    });
    await expect(client.customers.retrieve('cus_1')).resolves.toMatchObject({ customerId: 'cus_1' });
    const ids = gateway.requests.map((r) => r.headers['request-id']);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
  });

  it('gives up after two retries', async () => {
    gateway.handle((_req, res) => {
      res.writeHead(503);
      res.end();
    });
    await expect(client.customers.retrieve('cus_1')).rejects.toThrow(/HTTP 503/);
    expect(gateway.requests).toHaveLength(3);
  });

  it('retries a connection reset and a timeout', async () => {
    gateway.handle((req, res, index) => {
      if (index === 0) req.headers && res.socket?.destroy();
      else if (index === 1)
        return; // hang
      else envelope(res, '00000', { customerId: 'cus_1' });
    });
    const quick = clientWith({ retryBaseDelayMs: 5, timeoutMs: 300 });
    await expect(quick.customers.retrieve('cus_1')).resolves.toMatchObject({ customerId: 'cus_1' });
    expect(gateway.requests).toHaveLength(3);
    await quick.close();
  });

  it('reports a read timeout as GatewayTimeoutError when retries run out', async () => {
    gateway.handle(() => undefined);
    const quick = clientWith({ retryBaseDelayMs: 5, timeoutMs: 100, maxRetries: 1 });
    await expect(quick.customers.retrieve('cus_1')).rejects.toBeInstanceOf(GatewayTimeoutError);
    expect(gateway.requests).toHaveLength(2);
    await quick.close();
  });

  it('reports an unexpected answer shape as ResponseValidationError', async () => {
    gateway.handle((_req, res) => envelope(res, '00000', { email: 'no id' }));
    await expect(client.customers.retrieve('cus_1')).rejects.toBeInstanceOf(ResponseValidationError);
  });
});

describe('money-moving calls never charge twice', () => {
  it('a reset after sending is an unknown outcome, sent exactly once', async () => {
    gateway.handle((_req, res) => res.socket?.destroy());
    const error = await client.charges.confirm(charge).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownOutcomeError);
    expect((error as UnknownOutcomeError).operation).toBe('confirmCharge');
    expect(gateway.requests).toHaveLength(1);
  });

  it('a timeout after sending is an unknown outcome, sent exactly once', async () => {
    gateway.handle(() => undefined);
    const quick = clientWith({ retryBaseDelayMs: 5, timeoutMs: 150 });
    await expect(
      quick.checkout.createPayment({
        orderNo: 'o',
        orderAmount: '1.00',
        orderCurrency: 'USD',
        paymentMethod: 'Credit Card',
        returnUrl: 'https://r',
      }),
    ).rejects.toBeInstanceOf(UnknownOutcomeError);
    expect(gateway.requests).toHaveLength(1);
    await quick.close();
  });

  it('a 5xx or a truncated answer is an unknown outcome, not retried', async () => {
    gateway.handle((_req, res, index) => {
      if (index === 0) {
        res.writeHead(500);
        res.end('{"code":"S0001"');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"code":"00000","data":{"orderNo":"or');
      }
    });
    await expect(client.charges.confirm(charge)).rejects.toBeInstanceOf(UnknownOutcomeError);
    await expect(
      client.localPayments.create({
        orderNo: 'o',
        orderAmount: '1.00',
        orderCurrency: 'EUR',
        paymentMethod: 'klarna',
        returnUrl: 'https://r',
      }),
    ).rejects.toBeInstanceOf(UnknownOutcomeError);
    expect(gateway.requests).toHaveLength(2);
  });

  it('a code that is not a documented refusal is an unknown outcome of the charge, with the code', async () => {
    for (const code of ['S0001', 'L0004', 'P0003', '1']) {
      gateway.handle((_req, res) =>
        envelope(res, code, { orderNo: 'order_1', orderStatus: 'fail', orderInfo: 'Declined' }, 'refused'),
      );
      const error = await failureOf(client.charges.confirm(charge));
      expect(error, code).toBeInstanceOf(UnknownOutcomeError);
      expect(error).toMatchObject({ code, operation: 'confirmCharge' });
      expect(error.message).toMatch(/not a documented refusal/);
    }
    expect(gateway.requests).toHaveLength(4);
    // "Already paid" keeps its documented error (startPayment reads it as unknown).
    gateway.handle((_req, res) => envelope(res, 'I0061', null, 'Duplicate Order'));
    const paid = await failureOf(client.charges.confirm(charge));
    expect(paid).toBeInstanceOf(GatewayApiError);
    expect(paid.code).toBe('I0061');
  });

  it("reads such an answer's data only when it says success or pending", async () => {
    gateway.handle((_req, res, index) =>
      envelope(
        res,
        'S0001',
        index === 0
          ? { ...chargeResult, orderStatus: 'success' }
          : { ...chargeResult, orderStatus: 'pending', redirectUrl: 'https://gw/3ds/1' },
      ),
    );
    await expect(client.charges.confirm(charge)).resolves.toMatchObject({ orderStatus: 'success' });
    await expect(client.charges.confirm(charge)).resolves.toMatchObject({
      orderStatus: 'pending',
      redirectUrl: 'https://gw/3ds/1',
    });
  });

  it('the documented refusals before processing stay errors of their class', async () => {
    for (const [code, errorClass] of [
      ['L0001', GatewayAuthenticationError],
      ['L0002', GatewayBadRequestError],
      ['L0003', GatewayClockSkewError],
      ['L0005', GatewayAuthenticationError],
      ['P0001', GatewayBadRequestError],
      ['P0002', GatewayBadRequestError],
    ] as const) {
      gateway.handle((_req, res) => envelope(res, code, null, 'refused'));
      const error = await failureOf(client.charges.confirm(charge));
      expect(error, code).toBeInstanceOf(errorClass);
      expect(error.code).toBe(code);
    }
  });

  it('an unreadable success answer is an unknown outcome', async () => {
    gateway.handle((_req, res) => envelope(res, '00000', { orderNo: 'order_1', orderStatus: 'maybe' }));
    await expect(client.charges.confirm(charge)).rejects.toBeInstanceOf(UnknownOutcomeError);
  });

  it('a refused connection is retried (nothing left) and then reported as a connection error', async () => {
    const { client: offline, events } = await offlineClient();
    await expect(offline.charges.confirm(charge)).rejects.toBeInstanceOf(GatewayConnectionError);
    expect(events.filter((e) => e.type === 'request')).toHaveLength(3);
    expect(
      new Set(events.filter((e) => e.type === 'request').map((e) => (e as { requestId: string }).requestId))
        .size,
    ).toBe(3);
    await offline.close();
  });

  it('attack: a network failure names its code, never the address behind it (it reaches shoppers through the platforms)', async () => {
    const { client: offline } = await offlineClient();
    const refused = await offline.charges.confirm(charge).then(
      () => new Error('charged'),
      (error: Error) => error,
    );
    expect(refused.message).toContain('could not reach the gateway (ECONNREFUSED)');
    expect(refused.message).not.toMatch(/127\.0\.0\.1|:\d{2,5}\b/);
    await offline.close();
    const unresolvable = new GatewayClient({
      gatewayNo: '12345678',
      signKey: 'k',
      baseUrl: 'http://gateway-egress.internal.invalid',
      maxRetries: 0,
    });
    const unknownHost = await unresolvable.customers.list().then(
      () => new Error('listed'),
      (error: Error) => error,
    );
    expect(unknownHost.message).toMatch(/could not reach the gateway \((ENOTFOUND|EAI_AGAIN)\)/);
    expect(unknownHost.message).not.toContain('internal.invalid');
    await unresolvable.close();
  });
});

describe('changes that do not move money are sent once unless they never left', () => {
  const customer = { email: 'ada@example.com', firstName: 'Ada' };
  const maybeApplied = /may or may not have been applied/;

  // undici runs timeouts on its coarse timer (ticks of ~0.5 s): a 150 ms timeout fires within ~1 s, so the
  // slow answers below come after 1.5 s.
  it('createCustomer answered slower than timeoutMs: one request, a timeout that is not retryable', async () => {
    gateway.handle((_req, res) => {
      setTimeout(() => envelope(res, '00000', { customerId: 'cus_1' }), 1_500);
    });
    const quick = clientWith({ retryBaseDelayMs: 5, timeoutMs: 150 });
    const error = await failureOf(quick.customers.create(customer));
    expect(error).toBeInstanceOf(GatewayTimeoutError);
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(maybeApplied);
    // Long enough for the retries the old policy made (backoff 5–20 ms) to have been recorded.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(gateway.requests).toHaveLength(1);
    await quick.close();
  });

  it('createCustomer answered with a 5xx: one request, an API error that is not retryable', async () => {
    gateway.handle((_req, res) => {
      res.writeHead(502);
      res.end('bad gateway');
    });
    const error = await failureOf(client.customers.create(customer));
    expect(error).toBeInstanceOf(GatewayApiError);
    expect(error).not.toBeInstanceOf(UnknownOutcomeError);
    expect(error.retryable).toBe(false);
    expect(error.httpStatus).toBe(502);
    expect(error.message).toMatch(maybeApplied);
    expect(gateway.requests).toHaveLength(1);
  });

  it('a 5xx with an error envelope keeps the gateway code, not retried', async () => {
    gateway.handle((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'S0001', message: 'system busy', data: null }));
    });
    const error = await failureOf(client.customers.create(customer));
    expect(error).toMatchObject({ code: 'S0001', retryable: false, httpStatus: 500 });
    expect(error.message).toMatch(/system busy.*may or may not have been applied/);
    expect(gateway.requests).toHaveLength(1);
  });

  it('an unreadable answer to a change is not retried', async () => {
    gateway.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>proxy error</html>');
    });
    const error = await failureOf(client.customers.create(customer));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(maybeApplied);
    expect(gateway.requests).toHaveLength(1);
  });

  it.each([
    ['createCustomer', (c: GatewayClient) => c.customers.create(customer)],
    ['deleteCustomer', (c: GatewayClient) => c.customers.delete('cus_1')],
    [
      'updatePaymentMethod',
      (c: GatewayClient) => c.paymentMethods.update({ customerPaymentMethodId: 'pm_1', billingDetail }),
    ],
    // GET on the wire, yet a change: not a read.
    ['attachPaymentMethod', (c: GatewayClient) => c.paymentMethods.attach('pm_1', 'cus_1')],
    ['detachPaymentMethod', (c: GatewayClient) => c.paymentMethods.detach('pm_1')],
  ])('%s: a connection reset after sending is reported once, not retried', async (name, call) => {
    gateway.handle((_req, res) => res.socket?.destroy());
    const error = await failureOf(call(client));
    expect(error).toBeInstanceOf(GatewayConnectionError);
    expect(error).not.toBeInstanceOf(UnknownOutcomeError);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain(name);
    expect(error.message).toMatch(maybeApplied);
    expect(gateway.requests).toHaveLength(1);
  });

  it('a GET read answered slower than timeoutMs is still retried', async () => {
    gateway.handle((_req, res, index) => {
      if (index === 0) setTimeout(() => envelope(res, '00000', { customerId: 'late' }), 1_500);
      else envelope(res, '00000', { customerId: 'cus_1' });
    });
    const quick = clientWith({ retryBaseDelayMs: 5, timeoutMs: 150 });
    await expect(quick.customers.retrieve('cus_1')).resolves.toMatchObject({ customerId: 'cus_1' });
    expect(gateway.requests).toHaveLength(2);
    await quick.close();
  });

  it('only plain GET lookups (and the bodyless session token) are reads in the operation table', () => {
    const reads = OPERATIONS.filter((operation) => operation.read).map((operation) => operation.name);
    expect(reads.sort()).toEqual(
      [
        'listCustomers',
        'listPaymentMethods',
        'retrieveCustomer',
        'retrievePaymentMethod',
        'retrieveRefund',
        'listTransactions',
        'retrieveTransaction',
        'listChargebacks',
        'createSessionToken',
      ].sort(),
    );
    for (const operation of OPERATIONS)
      if (operation.read && operation.name !== 'createSessionToken') expect(operation.method).toBe('GET');
  });

  it('a change that never left (connection refused) is still retried', async () => {
    const offline = await offlineClient();
    await expect(offline.client.customers.create(customer)).rejects.toMatchObject({
      name: 'GatewayConnectionError',
      retryable: true,
    });
    expect(offline.events.filter((e) => e.type === 'request')).toHaveLength(3);
    await offline.client.close();
  });
});

describe('gateway text is redacted in errors, log events and outcomes', () => {
  const leaky = 'cardNo 4242424242424242 cvv 123 signInfo 9f86d081884c7d65';
  const attempt: PaymentRequest = {
    source: { kind: 'card-data', card: { ...card } },
    orderNo: 'order_1',
    amount: '10.00',
    currency: 'USD',
    customer: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
    billingAddress: { line1: '1 Main Street', city: 'Austin', country: 'US', state: 'TX' },
    customerIp: '127.0.0.1',
    webSite: 'shop.example',
    returnUrl: 'https://shop.example/return',
    callbackUrl: 'https://shop.example/callback',
  };
  const expectClean = (text: string) => {
    expect(text).not.toContain('4242424242424242');
    expect(text).not.toMatch(/cvv\W*123/);
    expect(text).not.toContain('9f86d081884c7d65');
  };

  it('a P0001 message quoting the card: error, logger events and startPayment reason', async () => {
    const events: GatewayLogEvent[] = [];
    const logged = clientWith({ retryBaseDelayMs: 5, logger: (e) => events.push(e) });
    gateway.handle((_req, res) => envelope(res, 'P0001', null, leaky));
    const error = await failureOf(logged.charges.confirm(charge));
    expect(error).toBeInstanceOf(GatewayBadRequestError);
    expectClean(error.message);
    // Still useful: the masked card and the code are there.
    expect(error.message).toContain('P0001');
    expect(error.message).toContain('424242***4242');
    const outcome = await startPayment(logged, attempt);
    expect(outcome).toMatchObject({ status: 'failed', code: 'P0001' });
    expectClean((outcome as { reason: string }).reason);
    expect(events.some((e) => e.type === 'error')).toBe(true);
    expectClean(JSON.stringify(events));
    await logged.close();
  });

  it('retried 5xx answers of a read: the error and retry events carry no card data', async () => {
    const events: GatewayLogEvent[] = [];
    const logged = clientWith({ retryBaseDelayMs: 5, logger: (e) => events.push(e) });
    gateway.handle((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'S0001', message: leaky, data: null }));
    });
    const error = await failureOf(logged.customers.retrieve('cus_1'));
    expectClean(error.message);
    expect(events.filter((e) => e.type === 'retry')).toHaveLength(2);
    expectClean(JSON.stringify(events));
    await logged.close();
  });

  it('a declined charge whose orderInfo quotes the card: the failed outcome keeps it masked', async () => {
    gateway.handle((_req, res) =>
      envelope(res, '00000', {
        ...chargeResult,
        orderStatus: 'fail',
        orderInfo: `Declined: ${leaky}`,
      }),
    );
    const outcome = await startPayment(client, attempt);
    expect(outcome.status).toBe('failed');
    expectClean((outcome as { reason: string }).reason);
    expectClean(JSON.stringify(outcome));
    expect((outcome as { reason: string }).reason).toContain('Declined: cardNo 424242***4242');
  });
});

describe('call options', () => {
  it("honours a timeout shorter than undici's one-second timer tick", async () => {
    gateway.handle(() => undefined);
    const quick = clientWith({ timeoutMs: 150, maxRetries: 0 });
    const error = await quick.customers.retrieve('cus_1').catch((e) => e);
    await quick.close();
    // The call ran with its own 150 ms, below the limit under which the exchange arms a timer of its
    // own; when that timer fires is shown with a clock under the test's control (test/http-exchange.test.ts).
    expect(error).toBeInstanceOf(GatewayTimeoutError);
    expect((error as GatewayTimeoutError).message).toMatch(/no answer within 150 ms/);
    expect((error as GatewayTimeoutError).retryable).toBe(true);
  });

  it('aborts a read through the caller signal', async () => {
    gateway.handle(() => undefined);
    const controller = new AbortController();
    const pending = client.customers.retrieve('cus_1', { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('a charge aborted before it was sent is a plain abort, not an unknown outcome, and sends nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await client.charges.confirm(charge, { signal: controller.signal }).catch((e) => e);
    expect(error).not.toBeInstanceOf(UnknownOutcomeError);
    expect(error).toMatchObject({ code: 'ABORTED' });
    expect(gateway.requests).toHaveLength(0);
  });

  it('a charge aborted after it was sent is an unknown outcome', async () => {
    const controller = new AbortController();
    // Aborted once the gateway holds the request (a fixed delay raced the connection under load).
    gateway.handle(() => {
      controller.abort();
      return undefined;
    });
    const pending = client.charges.confirm(charge, { signal: controller.signal });
    await expect(pending).rejects.toBeInstanceOf(UnknownOutcomeError);
    expect(gateway.requests).toHaveLength(1);
  });

  it('reads an answer that arrives in many chunks, split inside multi-byte characters', async () => {
    const text = JSON.stringify({
      code: '00000',
      message: 'success',
      data: { ...chargeResult, orderInfo: 'Zahlung bestätigt — 支払い完了 ✓'.repeat(50) },
    });
    const bytes = Buffer.from(text, 'utf8');
    gateway.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // Seven-byte slices cut through the two- and three-byte characters.
      let at = 0;
      const next = () => {
        if (at >= bytes.length) return void res.end();
        res.write(bytes.subarray(at, at + 7));
        at += 7;
        setImmediate(next);
      };
      next();
    });
    const result = await client.charges.confirm(charge);
    expect(result.orderInfo).toBe('Zahlung bestätigt — 支払い完了 ✓'.repeat(50));
  });

  it('refuses an answer larger than 4 MiB instead of buffering it (a read, so retried, then failed)', async () => {
    gateway.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"code":"00000","message":"${'x'.repeat(5 * 1024 * 1024)}","data":null}`);
    });
    const error = await client.customers.retrieve('cus_1').catch((e) => e);
    expect(error).toBeInstanceOf(GatewayConnectionError);
    expect(error.message).toContain('larger than');
  });

  it('logs requests and responses without bodies, card data or the key', async () => {
    const events: GatewayLogEvent[] = [];
    const logged = clientWith({ logger: (e) => events.push(e) });
    gateway.handle((_req, res) =>
      envelope(res, '00000', { customerPaymentMethodId: 'pm_1', card: { last4: '4242' } }),
    );
    await logged.paymentMethods.create({
      billingDetail: {
        firstName: 'A',
        lastName: 'B',
        email: 'ab@example.com',
        phone: '5550100',
        address: { line1: '1 Road', city: 'Berlin', country: 'DE' },
      },
      card: {
        cardNo: '4242424242424242',
        cardExpireMonth: '12',
        cardExpireYear: '2030',
        cardSecurityCode: '123',
      },
    });
    expect(events.map((e) => e.type)).toEqual(['request', 'response']);
    const text = JSON.stringify(events);
    expect(text).not.toContain('4242424242424242');
    expect(text).not.toContain(signKey);
    await logged.close();
  });
});

describe('overall deadline', () => {
  it('stops retrying once the deadline has passed', async () => {
    gateway.handle(() => undefined);
    const bounded = clientWith({ retryBaseDelayMs: 5, timeoutMs: 1_000, deadlineMs: 250, maxRetries: 5 });
    await expect(bounded.customers.retrieve('cus_1')).rejects.toBeInstanceOf(GatewayTimeoutError);
    expect(gateway.requests).toHaveLength(1);
    await bounded.close();
  });
});
