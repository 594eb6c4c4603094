/** The gateway's answer codes (docs/gateway-protocol.md#response-envelope, #error-codes). */
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, isRefusedBeforeProcessing, isSuccessCode } from '../src/index.js';

describe('isSuccessCode', () => {
  it('is all zeros, a string of one or more or the number 0 (PHP == compares them equal)', () => {
    for (const code of ['0', '00', '000', '0000', '00000', '000000', 0])
      expect(isSuccessCode(code)).toBe(true);
  });

  it('is nothing else', () => {
    for (const code of ['', ' 0', '0 ', '00001', 'O0000', '0.0', '-0', 'S0001', '1', 1, undefined]) {
      expect(isSuccessCode(code), JSON.stringify(code)).toBe(false);
    }
  });
});

describe('isRefusedBeforeProcessing', () => {
  it('is the published request and parameter refusals', () => {
    for (const code of ['L0001', 'L0002', 'L0003', 'L0005', 'P0001', 'P0002']) {
      expect(isRefusedBeforeProcessing(code), code).toBe(true);
    }
  });

  it('is not the generic code, a request-id replay, "already paid", an unpublished code or success', () => {
    for (const code of [
      ERROR_CODES.GENERIC,
      ERROR_CODES.DUPLICATE,
      'I0061',
      'P0003',
      'X1234',
      '00000',
      undefined,
    ]) {
      expect(isRefusedBeforeProcessing(code), String(code)).toBe(false);
    }
  });
});
