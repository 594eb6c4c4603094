/** Hot-path shortcuts must give exactly what the plain versions give. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoAt } from '../src/context.js';
import { redactText } from '../src/redact.js';
import { matchRoute } from '../src/router.js';

// The three passes of redactText without the shortcut.
function redactTextPlain(text: string): string {
  const mask = (value: string) => {
    const digits = value.replace(/\D/g, '');
    return digits.length >= 10 ? `${digits.slice(0, 6)}***${digits.slice(-4)}` : '***';
  };
  return text
    .replace(
      /("(?:cardNo|cardNumber|pan)"\s*:\s*)"([^"]*)"/gi,
      (_, key: string, value: string) => `${key}"${mask(value)}"`,
    )
    .replace(/(?<![\w])(\d{6})\d{2,9}(\d{4})(?![\w])/g, '$1***$2')
    .replace(/("(?:cardSecurityCode|cvv|cvc|securityCode)"\s*:\s*)"[^"]*"/gi, '$1"***"');
}

describe('hot-path shortcuts', () => {
  it('redactText equals the three plain passes', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        '"cardNo":',
        '"PAN" : ',
        '"cvv":',
        '"x":',
        '"',
        '/',
        '_',
        ' ',
        '-',
        'cus_',
        '?a=',
        '4242424242424242',
        '123456789012',
        '12345678901',
      ),
      fc.stringMatching(/^\d{1,20}$/),
      fc.string({ maxLength: 8 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        expect(redactText(text)).toBe(redactTextPlain(text));
      }),
      { numRuns: 2000 },
    );
  });

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
