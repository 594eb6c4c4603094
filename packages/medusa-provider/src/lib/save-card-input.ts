import { createPaymentMethodRequestSchema, parseStorefrontInput } from '@gatewaykit/core';
import { z } from 'zod';
import { toMedusaError } from './medusa-errors';

/** The saved-card route's body: the card and its billing details, nothing else (docs/SECURITY.md). */
const SAVE_CARD_INPUT = createPaymentMethodRequestSchema.omit({ customerId: true }).strict();

export type SaveCardInput = z.output<typeof SAVE_CARD_INPUT>;

/** Parses the body of POST /store/gatewaykit/payment-methods; a 400 names each refused field. */
export function parseSaveCardInput(body: unknown): SaveCardInput {
  try {
    return parseStorefrontInput(SAVE_CARD_INPUT, body ?? {}, 'saved card', 'body', ['card']);
  } catch (error) {
    throw toMedusaError(error, 'gatewaykit');
  }
}
