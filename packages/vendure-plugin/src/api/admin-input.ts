import { CLOSE_NOTE_MAX_LENGTH } from '@gatewaykit/core';
import { z } from 'zod';

/**
 * The Admin API's arguments, parsed before anything is read or changed. Messages name the field and
 * the rule, never the value (a note may hold a card number; it is stored masked, never echoed).
 */

/** The gateway orderNo column's length (payment-attempt.entity.ts). */
const ORDER_NO_MAX_LENGTH = 50;

export const closeAttemptArgs = z.strictObject({
  orderNo: z
    .string()
    .min(1, 'must not be empty')
    .max(ORDER_NO_MAX_LENGTH, `must be at most ${ORDER_NO_MAX_LENGTH} characters`),
  note: z
    .string()
    .trim()
    .min(1, 'is required (what the merchant portal showed)')
    .max(CLOSE_NOTE_MAX_LENGTH, `must be at most ${CLOSE_NOTE_MAX_LENGTH} characters`),
});

export const closeRefundIntentArgs = z.strictObject({
  merTrackNo: z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
  made: z.boolean(),
  note: z
    .string()
    .trim()
    .min(1, 'is required (what the merchant portal showed)')
    .max(CLOSE_NOTE_MAX_LENGTH, `must be at most ${CLOSE_NOTE_MAX_LENGTH} characters`),
});

export type AdminInputResult<T> = { ok: true; value: T } | { ok: false; message: string };

/** Parses one Admin API argument object; a failure names every bad field ("note: must be ..."). */
export function parseAdminInput<S extends z.ZodType>(
  schema: S,
  input: unknown,
): AdminInputResult<z.output<S>> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  const message = parsed.error.issues
    .map((issue) => `${issue.path.map(String).join('.') || 'input'}: ${issue.message}`)
    .join('; ');
  return { ok: false, message };
}
