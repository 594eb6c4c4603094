import { afterAll, describe, expect, it } from 'vitest';
import { GatewayClient, gatewayClientFor, parseGatewayConfig } from '../src/index.js';

const valid = { gatewayNo: '12345678', signKey: 'a-long-sign-key', environment: 'test' };

/** The option names of the issues of a refused input. */
function refused(input: Record<string, unknown>): Record<string, string> {
  const result = parseGatewayConfig(input);
  expect(result.ok).toBe(false);
  return Object.fromEntries((result.issues ?? []).map((issue) => [issue.path, issue.message]));
}

describe('parseGatewayConfig', () => {
  it('accepts a preset environment or a base URL, trimmed and without trailing slashes', () => {
    expect(parseGatewayConfig(valid)).toEqual({ ok: true, config: valid });
    expect(
      parseGatewayConfig({
        gatewayNo: ' AB12cd34 ',
        signKey: 'a-long-sign-key\n',
        baseUrl: ' http://127.0.0.1:4100// ',
        timeoutMs: 5000,
      }),
    ).toEqual({
      ok: true,
      config: {
        gatewayNo: 'AB12cd34',
        signKey: 'a-long-sign-key',
        baseUrl: 'http://127.0.0.1:4100',
        timeoutMs: 5000,
      },
    });
  });

  it('takes a baseUrl without an environment, and ignores an empty baseUrl beside one', () => {
    expect(
      parseGatewayConfig({ ...valid, environment: undefined, baseUrl: 'https://gw.example' }).config,
    ).toEqual({
      gatewayNo: '12345678',
      signKey: 'a-long-sign-key',
      baseUrl: 'https://gw.example',
    });
    expect(parseGatewayConfig({ ...valid, environment: 'live', baseUrl: '' }).config).toMatchObject({
      environment: 'live',
    });
  });

  it('attack: refuses an environment with a baseUrl beside it (a store switched to live with the sandbox left in its settings)', () => {
    for (const environment of ['live', 'test']) {
      expect(refused({ ...valid, environment, baseUrl: 'http://127.0.0.1:8691' })).toEqual({
        baseUrl: `must be left empty when environment is set (${environment}): give one of them, not both`,
      });
    }
  });

  it.each([
    ['', 'empty'],
    ['12345678901234567', '17 characters'],
    ['1234-5678', 'a dash'],
    [12345678, 'a number'],
    [undefined, 'missing'],
  ] as [unknown, string][])('refuses gatewayNo %j (%s), naming it', (gatewayNo) => {
    expect(refused({ ...valid, gatewayNo })).toEqual({
      gatewayNo: 'must be the merchant gateway number: 1 to 16 letters or digits',
    });
  });

  it('takes gatewayNo of 1 to 16 letters or digits (Vendure once took digits only)', () => {
    expect(parseGatewayConfig({ ...valid, gatewayNo: '1' }).ok).toBe(true);
    expect(parseGatewayConfig({ ...valid, gatewayNo: 'abcDEF0123456789' }).ok).toBe(true);
  });

  it.each([
    [undefined, 'missing'],
    ['short', 'under 8 characters'],
    ['   1234567   ', '7 characters once trimmed'],
    ['        ', 'blank'],
  ] as [unknown, string][])('refuses signKey %j (%s), naming it', (signKey) => {
    expect(refused({ ...valid, signKey })).toEqual({
      signKey: 'must be the merchant sign key (at least 8 characters)',
    });
  });

  it('refuses a missing or unknown environment and a base URL that is not http(s)', () => {
    expect(refused({ ...valid, environment: undefined })).toEqual({
      environment: "is required: 'test' or 'live' (or give baseUrl)",
    });
    expect(refused({ ...valid, environment: 'prod' })).toEqual({
      environment: "must be 'test' or 'live' (or give baseUrl)",
    });
    // A typo is reported even when a baseUrl makes the environment unnecessary.
    expect(refused({ ...valid, environment: 'custom', baseUrl: 'http://127.0.0.1:4100' })).toEqual({
      environment: "must be 'test' or 'live' (or give baseUrl)",
    });
    for (const baseUrl of ['ftp://gateway', 'gateway.example', 'http://', 'http://a b.example', 42]) {
      expect(refused({ ...valid, environment: undefined, baseUrl })).toEqual({
        baseUrl: 'must be an http(s) URL such as https://testpay.asiabill.com',
      });
    }
    // An empty baseUrl with no environment: the custom target was left out, so baseUrl is named.
    expect(refused({ ...valid, environment: undefined, baseUrl: ' ' })).toEqual({
      baseUrl: 'must be an http(s) URL such as https://testpay.asiabill.com',
    });
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, '5000'])('refuses timeoutMs %j', (timeoutMs) => {
    expect(refused({ ...valid, timeoutMs })).toEqual({
      timeoutMs: 'must be a positive number of milliseconds',
    });
  });

  it('reports every problem at once', () => {
    expect(
      Object.keys(refused({ gatewayNo: 'x-1', signKey: '', environment: 'prod', timeoutMs: -5 })),
    ).toEqual(['gatewayNo', 'signKey', 'environment', 'timeoutMs']);
  });

  it('gives settings GatewayClient accepts as they are', () => {
    const { config } = parseGatewayConfig({
      ...valid,
      environment: undefined,
      baseUrl: 'http://127.0.0.1:4100/',
    });
    const client = new GatewayClient(config!);
    expect(client.baseUrl).toBe('http://127.0.0.1:4100');
    return client.close();
  });
});

describe('gatewayClientFor', () => {
  const used: GatewayClient[] = [];
  const clientFor = (...args: Parameters<typeof gatewayClientFor>) => {
    const client = gatewayClientFor(...args);
    used.push(client);
    return client;
  };
  afterAll(async () => {
    await Promise.all([...new Set(used)].map((client) => client.close()));
  });

  const config = { gatewayNo: '11112222', signKey: 'cache-sign-key', baseUrl: 'http://127.0.0.1:4199' };

  it('shares one client between equal settings, even from different objects', () => {
    const first = clientFor(config);
    expect(clientFor({ ...config })).toBe(first);
    expect(clientFor({ ...config, baseUrl: 'http://127.0.0.1:4199/' })).toBe(first);
    expect(first.gatewayNo).toBe('11112222');
    expect(first.baseUrl).toBe('http://127.0.0.1:4199');
  });

  it('treats a preset environment and its host given as baseUrl as one target', () => {
    const settings = { gatewayNo: '11112222', signKey: 'cache-sign-key' };
    const preset = clientFor({ ...settings, environment: 'test' });
    expect(clientFor({ ...settings, baseUrl: preset.baseUrl })).toBe(preset);
  });

  it('gives a different client for another gateway number, key, target or timeout', () => {
    const first = clientFor(config);
    const others = [
      clientFor({ ...config, gatewayNo: '11113333' }),
      clientFor({ ...config, signKey: 'another-sign-key' }),
      clientFor({ ...config, baseUrl: 'http://127.0.0.1:4200' }),
      clientFor({ gatewayNo: config.gatewayNo, signKey: config.signKey, environment: 'live' }),
      clientFor({ ...config, timeoutMs: 1000 }),
    ];
    expect(new Set([first, ...others]).size).toBe(6);
  });
});
