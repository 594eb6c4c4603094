import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  GatewayValidationError,
  localMethodInput,
  parseStorefrontInput,
  savedCardIdInput,
} from '../src/index.js';

const sessionInput = z.strictObject({
  customerPaymentMethodId: savedCardIdInput.optional(),
  localMethod: localMethodInput.optional(),
});

function refusal(input: unknown): GatewayValidationError {
  try {
    parseStorefrontInput(sessionInput, input, 'payment session data');
  } catch (error) {
    if (error instanceof GatewayValidationError) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('parseStorefrontInput', () => {
  it('accepts the allow-listed keys', () => {
    expect(
      parseStorefrontInput(sessionInput, { customerPaymentMethodId: 'pm_1', localMethod: 'Klarna' }, 'x'),
    ).toEqual({
      customerPaymentMethodId: 'pm_1',
      localMethod: 'Klarna',
    });
  });

  it('names every refused key and never echoes a value', () => {
    const error = refusal({ outcome: { status: 'succeeded' }, attemptedAt: 'now', localMethod: 7 });
    expect(error.issues.map((issue) => issue.path).sort()).toEqual([
      'data.attemptedAt',
      'data.localMethod',
      'data.outcome',
    ]);
    expect(error.message).not.toContain('succeeded');
  });

  it('never echoes the digits of a refused key', () => {
    const error = refusal({ 'x4242 4242 4242 4241': 1 });
    expect(error.message).not.toMatch(/\d{4}/);
    expect(error.issues[0]?.path).toBe('data.x#### #### #### ####');
  });

  it('refuses card data before the schema, at any depth, with only its path', () => {
    const error = refusal({ note: { cvv: '123' } });
    expect(error.issues).toEqual([{ path: 'data.note.cvv', message: expect.stringContaining('card data') }]);
    expect(refusal({ customerPaymentMethodId: '4242424242424242' }).message).not.toMatch(/4242/);
  });

  it('any extra key or wrong type is refused with a GatewayValidationError, never another error', () => {
    fc.assert(
      fc.property(fc.object({ maxDepth: 3 }), (junk) => {
        const input = { ...junk, extra: junk };
        expect(refusal(input).issues.length).toBeGreaterThan(0);
      }),
    );
  });

  it('a payment method id is an id with its letter prefix, never a card number with or without separators', () => {
    for (const id of ['pm_1526753334131306496', 'pm_1', 'pm-element_9']) {
      expect(savedCardIdInput.safeParse(id).success).toBe(true);
    }
    for (const typed of [
      '4242424242424242',
      '4111-1111-1111-1111',
      '4111_1111_1111_1111',
      '1234',
      '-_-1',
      // A card number with a letter glued on, or an id's prefix around one that is not the id's shape
      // (found by review): stored and sent as a lookup path before.
      '4111111111111111x',
      'x4111111111111111',
      'pm_4111111111111111x',
      'card-4111-1111-1111-1111',
      // An id's prefix on a card number of any length but the id's 19 digits (found by review).
      'pm_4111111111111111',
      'pm_378282246310005',
    ]) {
      const parsed = savedCardIdInput.safeParse(typed);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toMatch(/^looks like a card number/);
    }
    expect(savedCardIdInput.safeParse('pm_1 OR 1=1').success).toBe(false);
    expect(savedCardIdInput.safeParse(`pm_${'1'.repeat(100)}`).success).toBe(false);
  });

  it('checks named card fields by the schema only, and still scans everything else', () => {
    const form = z.strictObject({
      card: z.strictObject({ cardNo: z.string().regex(/^\d{13,19}$/) }),
      note: z.string(),
    });
    expect(
      parseStorefrontInput(form, { card: { cardNo: '4242424242424242' }, note: 'x' }, 'card', 'body', [
        'card',
      ]),
    ).toEqual({
      card: { cardNo: '4242424242424242' },
      note: 'x',
    });
    expect(() =>
      parseStorefrontInput(
        form,
        { card: { cardNo: '4242424242424242' }, note: '4242 4242 4242 4242' },
        'card',
        'body',
        ['card'],
      ),
    ).toThrow(/body\.note: looks like card data/);
  });
});
