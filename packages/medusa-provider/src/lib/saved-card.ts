import type { PaymentMethod } from '@gatewaykit/core';

/** The public view of a saved card: brand and last four digits only. */
export function toSavedCard(method: PaymentMethod): { brand: string | undefined; last4: string | undefined } {
  return { brand: method.card?.brand ?? undefined, last4: method.card?.last4 ?? undefined };
}
