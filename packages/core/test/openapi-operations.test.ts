/**
 * The OpenAPI host's operations (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks) against
 * a real local HTTP server: exact paths, host selection, sign-info recomputed here from the recipe of
 * docs/signing.md#requests (not with core's signing code), validation before sending, and a refund whose
 * answer is lost sent exactly once.
 */
import { createHmac } from 'node:crypto';
import { MockAgent } from 'undici';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  GatewayClient,
  type GatewayError,
  GatewayValidationError,
  gatewayClientFor,
  OPENAPI_HOSTS,
  OPERATIONS,
  UnknownOutcomeError,
} from '../src/index.js';
import {
  envelope,
  type RecordedRequest,
  startTestGateway,
  type TestGateway,
} from './support/http-gateway.js';

const gatewayNo = '12345678';
const signKey = 'openapi-sign-key';

let gateway: TestGateway;
let client: GatewayClient;

beforeEach(async () => {
  gateway = await startTestGateway();
  client = new GatewayClient({
    gatewayNo,
    signKey,
    baseUrl: gateway.url,
    retryBaseDelayMs: 5,
    timeoutMs: 2_000,
  });
});

afterEach(async () => {
  await client.close();
  await gateway.close();
});

/**
 * docs/signing.md#requests, written out again: H = gateway-no + request-id + request-time; P = path
 * values by parameter name; Q = query values (decoded) by key; B = the body as sent; the non-empty ones
 * joined by '.'; lowercase hex HMAC-SHA256 with the sign key.
 */
function expectedSignInfo(
  sent: RecordedRequest,
  pathParams: Record<string, string> = {},
  query: Record<string, string> = {},
): string {
  const byName = (record: Record<string, string>) =>
    Object.keys(record)
      .sort()
      .map((key) => record[key])
      .join('');
  const head = `${sent.headers['gateway-no']}${sent.headers['request-id']}${sent.headers['request-time']}`;
  const signString = [head, byName(pathParams), byName(query), sent.body]
    .filter((part) => part !== '')
    .join('.');
  return createHmac('sha256', signKey).update(signString, 'utf8').digest('hex');
}

/** The query of a recorded request as the gateway decodes it. */
function decodedQuery(sent: RecordedRequest): Record<string, string> {
  return Object.fromEntries(new URL(sent.url, 'http://gateway').searchParams);
}

function failureOf(call: Promise<unknown>): Promise<GatewayError> {
  return call.then(
    () => expect.unreachable('the call should have failed'),
    (error: unknown) => error as GatewayError,
  );
}

const refund = {
  merTrackNo: 're_01HZX',
  refundAmount: '5.00',
  refundReason: 'Customer returned the item',
  refundType: '2',
  tradeNo: '2024050110000012345678',
} as const;

const transaction = {
  orderNo: 'order_1',
  tradeNo: '2024050110000012345678',
  tradeDate: '2024-05-01 10:00:02',
  tradeStatus: 'success',
  tradeInfo: 'Transaction Approved',
  tradeAmount: '10.00',
  tradeCurrency: 'USD',
};

describe('the operations table', () => {
  it('has the OpenAPI operations on the openapi host, the 13 others and the session token on the payment host', () => {
    const byHost = (host: string) =>
      OPERATIONS.filter((operation) => operation.host === host).map((operation) => operation.name);
    expect(byHost('openapi')).toEqual([
      'createRefund',
      'retrieveRefund',
      'listTransactions',
      'retrieveTransaction',
      'listChargebacks',
    ]);
    expect(byHost('payment')).toHaveLength(14);
    const createRefund = OPERATIONS.find((operation) => operation.name === 'createRefund')!;
    expect(createRefund).toMatchObject({ method: 'POST', path: '/refund', moneyMoving: true, read: false });
  });
});

describe('wire format and signatures', () => {
  it('createRefund: POST /refund, body signed as sent (H.B)', async () => {
    gateway.handle((_req, res) => envelope(res, '00000', { batchNo: 'B100', refundStatus: 'pending' }));
    const result = await client.refunds.create({ ...refund, remark: 'parcel back on 1 May' });
    expect(result).toEqual({ batchNo: 'B100', refundStatus: 'pending' });
    const [sent] = gateway.requests;
    expect(sent!.method).toBe('POST');
    expect(sent!.url).toBe('/V2022-03/refund');
    expect(JSON.parse(sent!.body)).toEqual({ ...refund, remark: 'parcel back on 1 May' });
    expect(sent!.headers['sign-info']).toBe(expectedSignInfo(sent!));
  });

  it('createRefund reads a numeric batchNo and the four-digit success code', async () => {
    gateway.handle((_req, res) => envelope(res, '0000', { batchNo: 42, refundStatus: null }));
    await expect(client.refunds.create(refund)).resolves.toEqual({ batchNo: '42', refundStatus: undefined });
  });

  it('retrieveRefund: GET /refund/{batchNo}, the path value encoded in the URL and signed raw (H.P)', async () => {
    gateway.handle((_req, res) =>
      envelope(res, '00000', {
        batchNo: 'B 1/2',
        merTrackNo: 're_1',
        tradeNo: 'T1',
        refundAmount: 5,
        refundCurrency: 'USD',
        refundStatus: 'SUCCESS',
        refundDate: '2024-05-02 09:00:00',
        channel: 'card',
      }),
    );
    const record = await client.refunds.retrieve('B 1/2');
    expect(record).toMatchObject({
      batchNo: 'B 1/2',
      refundAmount: '5',
      refundStatus: 'success',
      channel: 'card',
    });
    expect(record).not.toHaveProperty('refundStatusText');
    const [sent] = gateway.requests;
    expect(sent!.method).toBe('GET');
    expect(sent!.url).toBe('/V2022-03/refund/B%201%2F2');
    expect(sent!.body).toBe('');
    expect(sent!.headers['sign-info']).toBe(expectedSignInfo(sent!, { batchNo: 'B 1/2' }));
  });

  it('retrieveRefund reads an unknown status as pending and keeps its text', async () => {
    gateway.handle((_req, res) => envelope(res, '00000', { batchNo: 'B1', refundStatus: 'processing' }));
    await expect(client.refunds.retrieve('B1')).resolves.toMatchObject({
      refundStatus: 'pending',
      refundStatusText: 'processing',
    });
  });

  it('listTransactions: query values URL-encoded on the wire, signed raw and ordered by key (H.Q)', async () => {
    gateway.handle((_req, res) =>
      envelope(res, '00000', { page: { total: 1, pageSize: 20, pageIndex: 2 }, list: [transaction] }),
    );
    const query = {
      startTime: '2024-05-01T09:30:00',
      endTime: '2024-05-01T10:30:00',
      orderNo: 'ord #1/ä&x=y',
      pageSize: 20,
      pageIndex: 2,
    };
    const list = await client.transactions.list(query);
    expect(list).toEqual({ page: { total: 1, pageSize: 20, pageIndex: 2 }, list: [transaction] });
    const [sent] = gateway.requests;
    expect(sent!.method).toBe('GET');
    expect(sent!.url.startsWith('/V2022-03/transactions?')).toBe(true);
    // ':' of the times, and the orderNo's space, '#', '/', 'ä', '&' and '=' never travel raw.
    expect(sent!.url).toContain('startTime=2024-05-01T09%3A30%3A00');
    expect(sent!.url).toContain('endTime=2024-05-01T10%3A30%3A00');
    expect(sent!.url.split('?')[1]).not.toMatch(/[:#/ ä]|&x=y/);
    const asSent = { ...query, pageSize: '20', pageIndex: '2' };
    expect(decodedQuery(sent!)).toEqual(asSent);
    // Ordered by key: endTime, orderNo, pageIndex, pageSize, startTime.
    expect(sent!.headers['sign-info']).toBe(expectedSignInfo(sent!, {}, asSent));
    expect(sent!.headers['sign-info']).toBe(
      createHmac('sha256', signKey)
        .update(
          `${gatewayNo}${sent!.headers['request-id']}${sent!.headers['request-time']}.2024-05-01T10:30:00ord #1/ä&x=y2202024-05-01T09:30:00`,
        )
        .digest('hex'),
    );
  });

  it('listTransactions sends only the options given (no "undefined" values) and reads list beside or inside page', async () => {
    gateway.handle((_req, res, index) =>
      index === 0
        ? envelope(res, '00000', {
            page: { total: '1', pageSize: '10', pageIndex: '1', list: [transaction] },
          })
        : envelope(res, '00000', { total: 0, list: null }),
    );
    const query = { startTime: '2024-05-01T00:00:00', endTime: '2024-05-01T23:59:59', tradeNo: undefined };
    const first = await client.transactions.list(query);
    expect(first.page).toEqual({ total: 1, pageSize: 10, pageIndex: 1 });
    expect(first.list).toEqual([transaction]);
    const second = await client.transactions.list({ ...query, tradeNo: 'T9' });
    expect(second).toEqual({ page: { total: 0, pageSize: 0, pageIndex: 1 }, list: [] });
    const [one, two] = gateway.requests;
    expect(decodedQuery(one!)).toEqual({ startTime: query.startTime, endTime: query.endTime });
    expect(one!.url).not.toContain('undefined');
    expect(one!.headers['sign-info']).toBe(
      expectedSignInfo(one!, {}, { startTime: query.startTime, endTime: query.endTime }),
    );
    expect(two!.headers['sign-info']).toBe(
      expectedSignInfo(two!, {}, { startTime: query.startTime, endTime: query.endTime, tradeNo: 'T9' }),
    );
  });

  it('listTransactions reads statuses tolerantly and keeps extra fields', async () => {
    gateway.handle((_req, res) =>
      envelope(res, '00000', {
        list: [
          { ...transaction, tradeStatus: 'Fail', tradeAmount: 10, uploadGoodsFlag: '0' },
          { ...transaction, tradeNo: 'T2', tradeStatus: 'reviewing' },
        ],
      }),
    );
    const { list } = await client.transactions.list({
      startTime: '2024-05-01T00:00:00',
      endTime: '2024-05-02T00:00:00',
    });
    expect(list[0]).toMatchObject({ tradeStatus: 'fail', tradeAmount: '10', uploadGoodsFlag: '0' });
    expect(list[1]).toMatchObject({ tradeStatus: 'pending', tradeStatusText: 'reviewing' });
  });

  it('retrieveTransaction: GET /orderInfo/{tradeNo} (H.P), extra fields kept', async () => {
    gateway.handle((_req, res) => envelope(res, '00000', { ...transaction, maskCardNo: '424242***4242' }));
    const record = await client.transactions.retrieve(transaction.tradeNo);
    expect(record).toEqual({ ...transaction, maskCardNo: '424242***4242' });
    const [sent] = gateway.requests;
    expect(sent!.method).toBe('GET');
    expect(sent!.url).toBe(`/V2022-03/orderInfo/${transaction.tradeNo}`);
    expect(sent!.headers['sign-info']).toBe(expectedSignInfo(sent!, { tradeNo: transaction.tradeNo }));
  });

  it('listChargebacks: GET /chargebacks with the record query; deadlines read from chargebackInfo too', async () => {
    const chargeback = {
      batchNo: 'C1',
      tradeNo: 'T1',
      orderNo: 'order_1',
      amount: 10,
      currency: 'USD',
      reason: 'D4755-Non-Receipt of Goods or Services',
      noticeDate: '2024-05-03 08:00:00',
    };
    gateway.handle((_req, res) =>
      envelope(res, '00000', {
        page: { total: 2, pageSize: 10, pageIndex: 1 },
        list: [
          { ...chargeback, chargebackInfo: { replyDeadline: '2024-05-20', cpdDate: '2024-05-04' } },
          { ...chargeback, batchNo: 'C2', replyDeadline: '2024-05-21' },
        ],
      }),
    );
    const query = { startTime: '2024-05-01T00:00:00', endTime: '2024-05-31T23:59:59', tradeNo: 'T1' };
    const result = await client.chargebacks.list(query);
    expect(result.page).toEqual({ total: 2, pageSize: 10, pageIndex: 1 });
    expect(result.list[0]).toMatchObject({
      batchNo: 'C1',
      amount: '10',
      replyDeadline: '2024-05-20',
      cpdDate: '2024-05-04',
    });
    expect(result.list[0]).not.toHaveProperty('chargebackInfo');
    expect(result.list[1]).toMatchObject({ batchNo: 'C2', replyDeadline: '2024-05-21', cpdDate: undefined });
    const [sent] = gateway.requests;
    expect(sent!.url.split('?')[0]).toBe('/V2022-03/chargebacks');
    expect(decodedQuery(sent!)).toEqual(query);
    expect(sent!.headers['sign-info']).toBe(expectedSignInfo(sent!, {}, query));
  });
});

describe('host selection', () => {
  it.each([
    ['test', 'https://testpay.asiabill.com', 'https://api-uat.asiabill.com'],
    ['live', 'https://safepay.asiabill.com', 'https://openapi.asiabill.com'],
  ] as const)(
    "%s: OpenAPI operations go to %s's OpenAPI host %s/openApi/V2022-03",
    async (environment, paymentHost, openApiOrigin) => {
      expect(OPENAPI_HOSTS[environment]).toBe(`${openApiOrigin}/openApi`);
      const agent = new MockAgent();
      agent.disableNetConnect();
      const seen: string[] = [];
      const answer = (data: unknown) => (options: { origin?: unknown; path: string }) => {
        seen.push(`${String(options.origin)}${options.path}`);
        return { code: '00000', message: 'success', data };
      };
      const openApi = agent.get(openApiOrigin);
      openApi
        .intercept({ path: '/openApi/V2022-03/refund', method: 'POST' })
        .reply(200, answer({ batchNo: 'B1' }));
      openApi
        .intercept({ path: '/openApi/V2022-03/refund/B1', method: 'GET' })
        .reply(200, answer({ batchNo: 'B1', refundStatus: 'success' }));
      openApi
        .intercept({ path: (path) => path.startsWith('/openApi/V2022-03/transactions?'), method: 'GET' })
        .reply(200, answer({ list: [] }));
      openApi
        .intercept({ path: `/openApi/V2022-03/orderInfo/${transaction.tradeNo}`, method: 'GET' })
        .reply(200, answer(transaction));
      openApi
        .intercept({ path: (path) => path.startsWith('/openApi/V2022-03/chargebacks?'), method: 'GET' })
        .reply(200, answer({ list: [] }));
      agent
        .get(paymentHost)
        .intercept({ path: '/V2022-03/customers/cus_1', method: 'GET' })
        .reply(200, answer({ customerId: 'cus_1' }));
      const preset = new GatewayClient({ gatewayNo, signKey, environment, dispatcher: agent });
      expect(preset.baseUrl).toBe(paymentHost);
      expect(preset.openApiBaseUrl).toBe(`${openApiOrigin}/openApi`);
      const window = { startTime: '2024-05-01T00:00:00', endTime: '2024-05-01T01:00:00' };
      await preset.refunds.create(refund);
      await preset.refunds.retrieve('B1');
      await preset.transactions.list(window);
      await preset.transactions.retrieve(transaction.tradeNo);
      await preset.chargebacks.list(window);
      await preset.customers.retrieve('cus_1');
      expect(seen.map((url) => url.split('?')[0])).toEqual([
        `${openApiOrigin}/openApi/V2022-03/refund`,
        `${openApiOrigin}/openApi/V2022-03/refund/B1`,
        `${openApiOrigin}/openApi/V2022-03/transactions`,
        `${openApiOrigin}/openApi/V2022-03/orderInfo/${transaction.tradeNo}`,
        `${openApiOrigin}/openApi/V2022-03/chargebacks`,
        `${paymentHost}/V2022-03/customers/cus_1`,
      ]);
      agent.assertNoPendingInterceptors();
      await preset.close();
      await agent.close();
    },
  );

  it('a baseUrl (the sandbox) serves both hosts: {baseUrl}/V2022-03/refund, also below a path', async () => {
    expect(client.openApiBaseUrl).toBe(gateway.url);
    gateway.handle((req, res) =>
      req.url.includes('/refund')
        ? envelope(res, '00000', { batchNo: 'B1' })
        : envelope(res, '00000', { customerId: 'cus_1' }),
    );
    await client.refunds.create(refund);
    await client.customers.retrieve('cus_1');
    const mounted = new GatewayClient({ gatewayNo, signKey, baseUrl: `${gateway.url}/gw/` });
    await mounted.refunds.create(refund);
    await mounted.close();
    expect(gateway.requests.map((request) => request.url)).toEqual([
      '/V2022-03/refund',
      '/V2022-03/customers/cus_1',
      '/gw/V2022-03/refund',
    ]);
  });

  describe('gatewayClientFor', () => {
    const used: GatewayClient[] = [];
    afterAll(async () => {
      await Promise.all([...new Set(used)].map((shared) => shared.close()));
    });
    const clientFor = (config: Parameters<typeof gatewayClientFor>[0]) => {
      const shared = gatewayClientFor(config);
      used.push(shared);
      return shared;
    };
    const settings = { gatewayNo: '22223333', signKey: 'openapi-cache-key' };

    it("a preset, and its payment host given as baseUrl, are one client with the preset's OpenAPI host", () => {
      const preset = clientFor({ ...settings, environment: 'live' });
      expect(preset.openApiBaseUrl).toBe(OPENAPI_HOSTS.live);
      expect(clientFor({ ...settings, baseUrl: 'https://safepay.asiabill.com/' })).toBe(preset);
      expect(clientFor({ ...settings, environment: 'live' })).toBe(preset);
    });

    it('a sandbox baseUrl is one client whose OpenAPI base is the same URL', () => {
      const sandbox = clientFor({ ...settings, baseUrl: 'http://127.0.0.1:4321' });
      expect(sandbox.baseUrl).toBe('http://127.0.0.1:4321');
      expect(sandbox.openApiBaseUrl).toBe('http://127.0.0.1:4321');
      expect(clientFor({ ...settings, baseUrl: 'http://127.0.0.1:4321/' })).toBe(sandbox);
    });
  });
});

describe('validation before sending', () => {
  it('createRefund names every bad field and sends nothing', async () => {
    const bad = {
      merTrackNo: 'x'.repeat(65),
      refundAmount: '0.00',
      refundType: '3',
      remark: 'r'.repeat(501),
      tradeNo: '',
    };
    const error = await failureOf(client.refunds.create(bad as never));
    expect(error).toBeInstanceOf(GatewayValidationError);
    expect((error as GatewayValidationError).issues.map((issue) => issue.path).sort()).toEqual([
      'merTrackNo',
      'refundAmount',
      'refundReason',
      'refundType',
      'remark',
      'tradeNo',
    ]);
    expect(error.message).toMatch(/^Invalid createRefund request: /);
    expect(gateway.requests).toHaveLength(0);
  });

  it.each([
    ['10.001', 'refundAmount'],
    ['-1', 'refundAmount'],
    ['1e3', 'refundAmount'],
  ])('refundAmount %s is refused', async (refundAmount, path) => {
    const error = await failureOf(client.refunds.create({ ...refund, refundAmount }));
    expect((error as GatewayValidationError).issues.map((issue) => issue.path)).toEqual([path]);
    expect(gateway.requests).toHaveLength(0);
  });

  it('refundReason is limited to 256 characters, merTrackNo to 64', async () => {
    await expect(
      client.refunds.create({ ...refund, refundReason: 'r'.repeat(257), merTrackNo: 'm'.repeat(64) }),
    ).rejects.toMatchObject({ issues: [{ path: 'refundReason' }] });
    expect(gateway.requests).toHaveLength(0);
  });

  it('the record queries check their times, window and paging, and send nothing', async () => {
    const window = { startTime: '2024-05-01T00:00:00', endTime: '2024-05-01T01:00:00' };
    const refused = async (call: Promise<unknown>) =>
      ((await failureOf(call)) as GatewayValidationError).issues.map((issue) => issue.path).sort();
    expect(
      await refused(
        client.transactions.list({ startTime: '2024-05-01 00:00:00', endTime: '2024-13-01T00:00:00' }),
      ),
    ).toEqual(['endTime', 'startTime']);
    expect(await refused(client.transactions.list({ ...window, endTime: '2024-04-30T23:59:59' }))).toEqual([
      'endTime',
    ]);
    expect(await refused(client.chargebacks.list({ ...window, pageSize: 0, pageIndex: 1.5 }))).toEqual([
      'pageIndex',
      'pageSize',
    ]);
    expect(await refused(client.transactions.list({ ...window, orderNo: '' }))).toEqual(['orderNo']);
    expect(await refused(client.transactions.list(undefined as never))).toEqual(['(root)']);
    await expect(client.refunds.retrieve('')).rejects.toThrow(/batchNo/);
    await expect(client.transactions.retrieve('')).rejects.toThrow(/tradeNo/);
    expect(gateway.requests).toHaveLength(0);
  });
});

describe('a refund is never sent twice', () => {
  it('a reset after sending: UnknownOutcomeError, exactly one request, advice naming merTrackNo', async () => {
    gateway.handle((_req, res) => res.socket?.destroy());
    const error = await failureOf(client.refunds.create(refund));
    expect(error).toBeInstanceOf(UnknownOutcomeError);
    expect((error as UnknownOutcomeError).operation).toBe('createRefund');
    expect(error.message).toMatch(/refund may have been made/);
    expect(error.message).toMatch(/merTrackNo/);
    expect(error.message).not.toMatch(/charge/);
    expect(gateway.requests).toHaveLength(1);
  });

  it('a timeout, a 5xx and an unreadable success answer are unknown outcomes, each sent once', async () => {
    const quick = new GatewayClient({
      gatewayNo,
      signKey,
      baseUrl: gateway.url,
      retryBaseDelayMs: 5,
      timeoutMs: 150,
    });
    gateway.handle((_req, res, index) => {
      if (index === 0) return; // never answered
      if (index === 1) {
        res.writeHead(502);
        res.end('bad gateway');
        return;
      }
      envelope(res, '00000', { refundStatus: 'pending' }); // no batchNo
    });
    for (const expected of [1, 2, 3]) {
      await expect(quick.refunds.create(refund)).rejects.toBeInstanceOf(UnknownOutcomeError);
      expect(gateway.requests).toHaveLength(expected);
    }
    await quick.close();
  });

  it('a code that is not a documented refusal (S0001, L0004, unpublished, I0061) is an unknown outcome carrying the code', async () => {
    const codes = ['S0001', 'L0004', 'R0042', 'I0061'];
    gateway.handle((_req, res, index) =>
      envelope(res, codes[index]!, { batchNo: 'B7', refundStatus: 'fail' }, 'api request error'),
    );
    for (const [index, code] of codes.entries()) {
      const error = await failureOf(client.refunds.create(refund));
      expect(error).toBeInstanceOf(UnknownOutcomeError);
      expect(error).toMatchObject({ code, operation: 'createRefund' });
      expect(error.message).toMatch(/refund may have been made/);
      expect(gateway.requests).toHaveLength(index + 1);
    }
  });

  it('a documented refusal before processing stays an error, and all zeros are success', async () => {
    gateway.handle((_req, res, index) => {
      if (index === 0) envelope(res, 'P0001', null, 'request param error');
      else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ code: index === 1 ? 0 : '0', message: 'success', data: { batchNo: 'B8' } }));
      }
    });
    const refused = await failureOf(client.refunds.create(refund));
    expect(refused).not.toBeInstanceOf(UnknownOutcomeError);
    expect(refused).toMatchObject({ name: 'GatewayBadRequestError', code: 'P0001' });
    await expect(client.refunds.create(refund)).resolves.toMatchObject({ batchNo: 'B8' });
    await expect(client.refunds.create(refund)).resolves.toMatchObject({ batchNo: 'B8' });
  });

  it('a read of the OpenAPI host is retried after a 5xx, with a fresh request-id', async () => {
    gateway.handle((_req, res, index) => {
      if (index === 0) {
        res.writeHead(503);
        res.end();
        return;
      }
      envelope(res, '00000', { batchNo: 'B1', refundStatus: 'fail' });
    });
    await expect(client.refunds.retrieve('B1')).resolves.toMatchObject({ refundStatus: 'fail' });
    expect(gateway.requests).toHaveLength(2);
    expect(gateway.requests[0]!.headers['request-id']).not.toBe(gateway.requests[1]!.headers['request-id']);
  });
});
