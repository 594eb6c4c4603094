/**
 * The built package as Medusa (CommonJS) and Vendure/ESM users load it. Runs after `build` (turbo's
 * test dependsOn build), so it checks the published files, not the sources.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
// Paths in variables: the types come from src, the code from the built files.
const cjsPath = '../dist/index.cjs';
const esmPath = '../dist/index.js';
type Core = typeof import('../src/index.js');

describe('published entry points', () => {
  it('exposes the same public API from the CommonJS and the ESM build', async () => {
    const cjs = require(cjsPath) as Record<string, unknown>;
    const esm = (await import(esmPath)) as Record<string, unknown>;
    for (const name of [
      'GatewayClient',
      'verifyCallback',
      'verifyReturn',
      'toOrderAmount',
      'fromOrderAmount',
      'startPayment',
      'OPERATIONS',
    ]) {
      expect(typeof cjs[name], `cjs ${name}`).not.toBe('undefined');
      expect(typeof esm[name], `esm ${name}`).not.toBe('undefined');
    }
    expect(Object.keys(cjs).sort()).toEqual(
      Object.keys(esm)
        .filter((key) => key !== 'default')
        .sort(),
    );
    expect((cjs.OPERATIONS as unknown[]).length).toBe(19);
  });

  it('recognises an error thrown by another copy of the package', async () => {
    const cjs = require(cjsPath) as Core;
    const esm = (await import(esmPath)) as Core;
    const fromCjs = new cjs.UnknownOutcomeError('lost answer', 'confirmCharge');
    expect(fromCjs instanceof esm.GatewayError).toBe(false);
    expect(esm.isGatewayError(fromCjs)).toBe(true);
    expect(esm.isGatewayError(new Error('plain'))).toBe(false);
  });

  it('publishes the test helpers as the ./testing subpath, in both formats', async () => {
    const cjs = require('../dist/testing.cjs') as Record<string, unknown>;
    const esm = (await import('../dist/testing.js' as string)) as Record<string, unknown>;
    for (const name of ['signedCallback', 'signedReturnQuery', 'returnFields']) {
      expect(typeof cjs[name], `cjs ${name}`).toBe('function');
      expect(typeof esm[name], `esm ${name}`).toBe('function');
    }
  });
});
