import { CLOSE_NOTE_MAX_LENGTH } from '@gatewaykit/core';
import { MedusaError } from '@medusajs/framework/utils';

/** An administrator's note of what the merchant portal shows, trimmed: 1 to CLOSE_NOTE_MAX_LENGTH characters. */
export function closeNoteOf(note: unknown): string {
  const trimmed = typeof note === 'string' ? note.trim() : '';
  if (trimmed.length === 0 || trimmed.length > CLOSE_NOTE_MAX_LENGTH) {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      `note: say what the merchant portal shows, 1 to ${CLOSE_NOTE_MAX_LENGTH} characters`,
    );
  }
  return trimmed;
}

/** A payment session id as the admin routes accept it (the gateway orderNo: letters, digits, `_`, `-`). */
export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{1,50}$/.test(value);
}

/** Refuses an admin body's fields a route does not take (`rest`: what is left once its own are read). */
export function refuseUnknownFields(rest: Record<string, unknown>): void {
  const unknownKeys = Object.keys(rest);
  if (unknownKeys.length > 0) {
    throw new MedusaError(MedusaError.Types.INVALID_DATA, `${unknownKeys.join(', ')}: not accepted here`);
  }
}
