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
      target: { environment: 'test' },
      mode: 'hosted',
    });
    expect(
      parseMethodArgs({ ...valid, environment: 'custom', baseUrl: 'http://127.0.0.1:4100/' }).target,
    ).toEqual({
      baseUrl: 'http://127.0.0.1:4100',
    });
  });

  it('normalises the local method name to the gateway spelling', () => {
    expect(parseMethodArgs({ ...valid, mode: 'local', localMethod: 'alipay' }).localMethod).toBe('Alipay');
  });

  it('lists every problem in one clear error', () => {
    const bad = () =>
      parseMethodArgs({
        gatewayNo: 'x1',
        signKey: '',
        environment: 'prod',
        mode: 'local',
        localMethod: 'Nope',
      });
    expect(bad).toThrow(MethodConfigError);
    expect(bad).toThrow(/gatewayNo.*signKey.*environment must be test, live or custom.*localMethod "Nope"/);
  });

  it('requires a base URL for the custom environment and a known mode', () => {
    expect(() => parseMethodArgs({ ...valid, environment: 'custom' })).toThrow(
      /baseUrl must be an http\(s\) URL/,
    );
    expect(() => parseMethodArgs({ ...valid, mode: 'paypal' })).toThrow(/mode must be card, hosted or local/);
  });
});
