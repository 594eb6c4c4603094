import { describe, expect, it } from 'vitest';
import { MethodConfigError, parseMethodArgs } from '../src/config/method-args';

const valid = {
  gatewayNo: '12345678',
  signKey: 'a-long-sign-key',
  environment: 'test',
  baseUrl: '',
  mode: 'hosted',
  localMethod: '',
};

describe('parseMethodArgs', () => {
  it('accepts preset environments and custom base URLs', () => {
    expect(parseMethodArgs(valid)).toEqual({
      gatewayNo: '12345678',
      signKey: 'a-long-sign-key',
      environment: 'test',
      mode: 'hosted',
      refunds: 'gateway',
    });
    expect(parseMethodArgs({ ...valid, environment: 'custom', baseUrl: 'http://127.0.0.1:4100/' })).toEqual({
      gatewayNo: '12345678',
      signKey: 'a-long-sign-key',
      baseUrl: 'http://127.0.0.1:4100',
      mode: 'hosted',
      refunds: 'gateway',
    });
  });

  it("checks the gateway settings by core's rules, the same as Medusa's options", () => {
    // The gateway number is 1 to 16 letters or digits on both platforms (Vendure once took 1 to 20 digits).
    expect(parseMethodArgs({ ...valid, gatewayNo: 'AB12cd34' }).gatewayNo).toBe('AB12cd34');
    expect(() => parseMethodArgs({ ...valid, gatewayNo: '1'.repeat(17) })).toThrow(
      'Invalid gateway payment method settings: gatewayNo must be the merchant gateway number: 1 to 16 letters or digits',
    );
    expect(() => parseMethodArgs({ ...valid, signKey: '  1234567 ' })).toThrow(
      'signKey must be the merchant sign key (at least 8 characters)',
    );
  });

  it('normalises the local method name to the gateway spelling', () => {
    expect(parseMethodArgs({ ...valid, mode: 'local', localMethod: 'alipay' }).localMethod).toBe('Alipay');
  });

  it('lists every problem in one clear error', () => {
    const bad = () =>
      parseMethodArgs({
        gatewayNo: 'x-1',
        signKey: '',
        environment: 'prod',
        mode: 'local',
        localMethod: 'Nope',
      });
    expect(bad).toThrow(MethodConfigError);
    expect(bad).toThrow(
      /gatewayNo must be .*; signKey must be .*; environment must be 'test' or 'live' \(or give baseUrl\); localMethod "Nope"/,
    );
  });

  it('requires a base URL for the custom environment and a known mode', () => {
    expect(() => parseMethodArgs({ ...valid, environment: 'custom' })).toThrow(
      /baseUrl must be an http\(s\) URL/,
    );
    expect(() => parseMethodArgs({ ...valid, mode: 'paypal' })).toThrow(/mode must be card, hosted or local/);
  });

  it('refunds: gateway (also when unset, as for methods saved before the argument) or manual', () => {
    expect(parseMethodArgs(valid).refunds).toBe('gateway');
    expect(parseMethodArgs({ ...valid, refunds: '' }).refunds).toBe('gateway');
    expect(parseMethodArgs({ ...valid, refunds: 'manual' }).refunds).toBe('manual');
    expect(() => parseMethodArgs({ ...valid, refunds: 'portal' })).toThrow(
      'Invalid gateway payment method settings: refunds must be gateway or manual (got "portal")',
    );
  });
});
