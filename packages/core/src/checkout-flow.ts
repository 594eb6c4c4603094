/**
 * Which of the gateway's three ways to pay a store payment method uses: `card` (confirmCharge on the
 * store's own checkout), `hosted` (the gateway's payment page) or `local` (a local method's page).
 * Both adapters configure a method with one of these (docs/payment-states.md).
 */
export const CHECKOUT_FLOWS = ['card', 'hosted', 'local'] as const;

export type CheckoutFlow = (typeof CHECKOUT_FLOWS)[number];

/** A stored flow name read back (a database column, session data): undefined when it is none of them. */
export function checkoutFlowOf(value: unknown): CheckoutFlow | undefined {
  return CHECKOUT_FLOWS.find((flow) => flow === value);
}
