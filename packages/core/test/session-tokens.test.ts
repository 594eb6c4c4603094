/**
 * The card element's session token (docs/gateway-protocol.md#session-tokens) against a real local HTTP
 * server: POST /sessionToken without a body, sign-info recomputed here from docs/signing.md#requests
 * (a bodyless call without parameters signs H alone, no trailing dot), the answer's shape checked, a lost
 * answer sent again, and where the browser SDK is served.
 */
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ELEMENT_SCRIPT_PATH, GatewayClient, GatewayError, OPERATIONS } from '../src/index.js';
import { envelope, startTestGateway, type TestGateway } from './support/http-gateway.js';

const gatewayNo = '12345678';
const signKey = 'session-token-key';

let gateway: TestGateway;
let client: GatewayClient;

beforeEach(async () => {
  gateway = await startTestGateway();
  client = new GatewayClient({
    gatewayNo,
    signKey,
    baseUrl: gateway.url,
    retryBaseDelayMs: 5,
    timeoutMs: 300,
  });
});

afterEach(async () => {
  await client.close();
  await gateway.close();
});

describe('createSessionToken', () => {
  it('is a bodyless POST /sessionToken on the payment host', () => {
    const operation = OPERATIONS.find((candidate) => candidate.name === 'createSessionToken');
    expect(operation).toMatchObject({
      host: 'payment',
      method: 'POST',
      path: '/sessionToken',
      pathParams: [],
      moneyMoving: false,
    });
    expect(operation && 'request' in operation).toBe(false);
  });

  it('sends no body and signs gateway-no + request-id + request-time alone', async () => {
    gateway.handle((_req, res) => envelope(res, '00000', { sessionToken: 'st_abc' }));
    await expect(client.sessionTokens.create()).resolves.toEqual({ sessionToken: 'st_abc' });
    const sent = gateway.requests[0]!;
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/V2022-03/sessionToken');
    expect(sent.body).toBe('');
    const head = `${sent.headers['gateway-no']}${sent.headers['request-id']}${sent.headers['request-time']}`;
    expect(sent.headers['gateway-no']).toBe(gatewayNo);
    // docs/signing.md#requests: H only, no dot and nothing after it.
    expect(sent.headers['sign-info']).toBe(createHmac('sha256', signKey).update(head, 'utf8').digest('hex'));
    expect(sent.headers['sign-info']).not.toBe(
      createHmac('sha256', signKey).update(`${head}.`, 'utf8').digest('hex'),
    );
  });

  it('the worked example of docs/signing.md for a bodyless call', () => {
    const head = '12345001REQ-00011651888520935';
    expect(createHmac('sha256', 'testkey1').update(head).digest('hex')).toBe(
      'dc8302b83eb550752beb361f7c6ab30b8ad3c828a144b13b0aac6d23ad93dd5f',
    );
  });

  it('refuses an answer without a token', async () => {
    gateway.handle((_req, res) => envelope(res, '00000', { sessionToken: '' }));
    await expect(client.sessionTokens.create()).rejects.toBeInstanceOf(GatewayError);
    gateway.handle((_req, res) => envelope(res, '00000', null));
    await expect(client.sessionTokens.create()).rejects.toBeInstanceOf(GatewayError);
  });

  it('reports a refusal of the gateway with its code', async () => {
    gateway.handle((_req, res) => envelope(res, '00004', null, 'check sign info error'));
    await expect(client.sessionTokens.create()).rejects.toMatchObject({ code: '00004' });
    expect(gateway.requests).toHaveLength(1);
  });

  it('is sent again when its answer is lost (a second token harms nothing)', async () => {
    gateway.handle((_req, res, index) => {
      if (index === 0) {
        res.writeHead(502);
        res.end('bad gateway');
      } else envelope(res, '00000', { sessionToken: 'st_second' });
    });
    await expect(client.sessionTokens.create()).resolves.toEqual({ sessionToken: 'st_second' });
    expect(gateway.requests).toHaveLength(2);
    expect(gateway.requests[1]!.headers['request-id']).not.toBe(gateway.requests[0]!.headers['request-id']);
  });
});

describe('elementScriptUrl', () => {
  it('is on the payment host of each environment', () => {
    const test = new GatewayClient({ gatewayNo, signKey, environment: 'test' });
    const live = new GatewayClient({ gatewayNo, signKey, environment: 'live' });
    expect(test.elementScriptUrl).toBe('https://testpay.asiabill.com/static/v3/js/AsiabillPayment.min.js');
    expect(live.elementScriptUrl).toBe('https://safepay.asiabill.com/static/v3/js/AsiabillPayment.min.js');
    expect(ELEMENT_SCRIPT_PATH).toBe('/static/v3/js/AsiabillPayment.min.js');
    return Promise.all([test.close(), live.close()]);
  });

  it("is the sandbox's own for a baseUrl, with or without a trailing slash or version", () => {
    const withSlash = new GatewayClient({ gatewayNo, signKey, baseUrl: `${gateway.url}/V2022-03/` });
    expect(client.elementScriptUrl).toBe(`${gateway.url}/static/v3/js/AsiabillPayment.min.js`);
    expect(withSlash.elementScriptUrl).toBe(`${gateway.url}/static/v3/js/AsiabillPayment.min.js`);
    return withSlash.close();
  });
});
