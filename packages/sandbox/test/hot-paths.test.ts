/**
 * Hot-path shortcuts must give exactly what the plain versions give. (redactText's early exit is
 * checked in core, where redaction lives: packages/core/test/redact.test.ts.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoAt } from '../src/context.js';
import { matchRoute } from '../src/router.js';

describe('hot-path shortcuts', () => {
  it('isoAt equals toISOString, including fractional and out-of-range times', () => {
    const special = [0, -0, 0.5, -1.5, 999, 1000, -1, -1000, -1001, 8.64e15, -8.64e15, 8.64e15 + 500];
    const times = fc.oneof(
      fc.constantFrom(...special),
      fc.integer({ min: -8.64e15, max: 8.64e15 }),
      fc.double({ min: -1e13, max: 1e13, noNaN: true }),
    );
    const iso = (ms: number) => {
      try {
        return new Date(ms).toISOString();
      } catch {
        return 'RangeError';
      }
    };
    fc.assert(
      fc.property(fc.array(times, { minLength: 1, maxLength: 5 }), (list) => {
        for (const ms of list) {
          let got: string;
          try {
            got = isoAt(ms);
          } catch {
            got = 'RangeError';
          }
          expect(got).toBe(iso(ms));
          // Clears the one-entry cache, so a repeated time is computed again rather than read back.
          isoAt(0);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('matchRoute still prefers fixed segments and decodes parameters', () => {
    expect(matchRoute('GET', '/payment_methods/list/cus_1')).toMatchObject({
      kind: 'operation',
      operation: { name: 'listPaymentMethods' },
      pathParams: { customerId: 'cus_1' },
    });
    expect(matchRoute('GET', '/payment_methods/pm%201/cus_1/attach')).toMatchObject({
      operation: { name: 'attachPaymentMethod' },
      pathParams: { customerPaymentMethodId: 'pm 1', customerId: 'cus_1' },
    });
    expect(matchRoute('POST', '/customers/cus_1')).toMatchObject({ kind: 'wrong-method' });
    expect(matchRoute('GET', '/customers/%E0%A4%A')).toEqual({ kind: 'unknown' });
  });
});
