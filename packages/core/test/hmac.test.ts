import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hmacSha256Hex } from '../src/signing.js';

const reference = (key: string, message: string) =>
  createHmac('sha256', key).update(message, 'utf8').digest('hex');

// hmacSha256Hex computes HMAC from cached key pads; it must equal node's createHmac for every key and message.
describe('hmacSha256Hex', () => {
  it('equals createHmac for ASCII keys up to a block and any message', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 64 }),
        fc.string({ unit: 'binary', maxLength: 500 }),
        (key, message) => {
          expect(hmacSha256Hex(key, message)).toBe(reference(key, message));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('equals createHmac for long and non-ASCII keys (the createHmac path)', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ minLength: 65, maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 80 })),
        fc.string({ unit: 'binary', maxLength: 500 }),
        (key, message) => {
          expect(hmacSha256Hex(key, message)).toBe(reference(key, message));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('handles the edge sizes of the key block and messages with lone surrogates', () => {
    for (const key of ['', 'k', 'x'.repeat(63), 'x'.repeat(64), 'x'.repeat(65), 'é', '\u007f'.repeat(64)]) {
      for (const message of ['', 'a', '\ud800', 'a\udc00b', '€'.repeat(100), 'z'.repeat(10_000)]) {
        expect(hmacSha256Hex(key, message)).toBe(reference(key, message));
      }
    }
  });

  it('keeps results right when more keys are used than the pad cache holds', () => {
    for (let i = 0; i < 200; i += 1) {
      const key = `key-${i}`;
      expect(hmacSha256Hex(key, `m${i}`)).toBe(reference(key, `m${i}`));
      expect(hmacSha256Hex('testkey1', 'x')).toBe(reference('testkey1', 'x'));
    }
  });
});
