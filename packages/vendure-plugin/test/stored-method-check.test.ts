import { describe, expect, it } from 'vitest';
import { refusedStoredMethods } from '../src/config/stored-method-check';

const args = (overrides: Record<string, string>) =>
  Object.entries({
    gatewayNo: '12345001',
    signKey: 'demo-sign-key-main-0001',
    environment: 'custom',
    baseUrl: 'http://127.0.0.1:8600',
    mode: 'card',
    ...overrides,
  }).map(([name, value]) => ({ name, value }));

describe('gateway methods stored before a rule was added', () => {
  it('names each gateway method whose stored settings are refused now, and why; others pass', () => {
    const refused = refusedStoredMethods([
      { code: 'ok', enabled: true, handler: { code: 'gatewaykit', args: args({}) } },
      // Saved when a baseUrl silently won over the environment: a live store paying into the sandbox.
      {
        code: 'live-with-sandbox',
        enabled: true,
        handler: { code: 'gatewaykit', args: args({ environment: 'live' }) },
      },
      { code: 'other-handler', enabled: true, handler: { code: 'bench-noop', args: [] } },
    ]);
    expect(refused).toEqual([
      {
        code: 'live-with-sandbox',
        reason: expect.stringContaining('baseUrl must be left empty when environment is set (live)'),
      },
    ]);
  });
});
