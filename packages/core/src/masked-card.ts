/**
 * The gateway's `maskCardNo` is stored and shown to shoppers (docs/safety-rules.md#card-data), so it is
 * kept only in a masked shape: a gateway or test gateway that sent a whole card number there would
 * otherwise have a PAN stored at rest.
 */

/**
 * A masked card number as the gateway writes one (first 6 + `***` + last 4: `400000***3155`,
 * docs/gateway-protocol.md#results): at most 6 digits, at least one `*`, at most 4 digits, so never
 * more than 10 digits of a card. ASCII digits only (no `u` flag).
 */
const MASKED_CARD = /^\d{0,6}\*+\d{0,4}$/;

/** `value` when it has the masked shape, otherwise undefined (empty and absent too): never stored as is. */
export function maskedCardNo(value: string | undefined): string | undefined {
  return value !== undefined && MASKED_CARD.test(value) ? value : undefined;
}
