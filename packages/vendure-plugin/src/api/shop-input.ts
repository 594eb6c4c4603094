import { GatewayValidationError, parseStorefrontInput, savedCardIdInput } from '@gatewaykit/core';
import { z } from 'zod';

/**
 * The trust boundary of the Shop API extension: every argument a storefront sends is parsed here by
 * an allow-list schema (known keys, types, bounds) before anything is stored or sent to the gateway.
 * Messages name the field and the rule, never the value (a value may be a card number).
 */

const METHOD_CODE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** Control characters never belong in an address line. */
const CONTROL = /\p{Cc}/u;

const methodCode = z.string().regex(METHOD_CODE, 'must be a payment method code (letters, digits, . _ -)');
const card = z.strictObject({
  cardNo: z.string().regex(/^\d{13,19}$/, 'must be 13 to 19 digits'),
  cardExpireMonth: z.string().regex(/^(0[1-9]|1[0-2])$/, 'must be two digits, 01 to 12'),
  cardExpireYear: z.string().regex(/^\d{4}$/, 'must be four digits'),
  cardSecurityCode: z.string().regex(/^\d{3,4}$/, 'must be 3 or 4 digits'),
});

/** Free text sent on to the gateway (address lines): bounded, printable (card numbers: parseShopInput). */
function text(max: number, min = 1) {
  return z
    .string()
    .min(min, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !CONTROL.test(value), 'must not contain control characters');
}

export const startPaymentInput = z
  .strictObject({
    paymentMethodCode: methodCode,
    savedCardId: savedCardIdInput.nullish(),
    card: card.nullish(),
    /** The card element's `customerPaymentMethodId` (docs/card-element.md). */
    elementPaymentMethodId: savedCardIdInput.nullish(),
    saveCard: z.boolean().nullish(),
  })
  .refine(
    (input) => [input.savedCardId, input.card, input.elementPaymentMethodId].filter(Boolean).length <= 1,
    {
      message: 'send one of elementPaymentMethodId, savedCardId or card, not several',
      path: ['card'],
    },
  )
  .refine((input) => !input.saveCard || input.elementPaymentMethodId, {
    message: 'saveCard is only for a card from the card element (elementPaymentMethodId)',
    path: ['saveCard'],
  });

export const cardElementArgs = z.strictObject({ paymentMethodCode: methodCode });

export const saveCardInput = z.strictObject({
  paymentMethodCode: methodCode,
  card,
  line1: text(200),
  city: text(100),
  countryCode: z.string().regex(/^[A-Za-z]{2}$/, 'must be a two-letter country code'),
  // Storefronts send '' for an address field the shopper left empty.
  postalCode: text(20, 0).nullish(),
  province: text(100, 0).nullish(),
});

export const savedCardsArgs = z.strictObject({ paymentMethodCode: methodCode });

export const removeSavedCardArgs = z.strictObject({ paymentMethodCode: methodCode, id: savedCardIdInput });

export type ShopInputResult<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * Card data may only be where the schema expects it (a PCI merchant's card form), and saved card and
 * element method ids are long digit strings that can pass Luhn: only the schema checks these fields.
 */
const CHECKED_BY_SCHEMA_ONLY = ['card', 'savedCardId', 'elementPaymentMethodId', 'id'];

/** Parses one Shop API argument object through core's storefront boundary; failures name every bad field. */
export function parseShopInput<S extends z.ZodType>(schema: S, input: unknown): ShopInputResult<z.output<S>> {
  try {
    return {
      ok: true,
      value: parseStorefrontInput(schema, input, 'input', 'input', CHECKED_BY_SCHEMA_ONLY),
    };
  } catch (error) {
    if (error instanceof GatewayValidationError) return { ok: false, message: error.message };
    throw error;
  }
}
