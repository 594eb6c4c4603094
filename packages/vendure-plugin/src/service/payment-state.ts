import type { PaymentOutcome, PaymentOutcomeStatus } from '@gatewaykit/core';

/**
 * The Vendure Payment a gateway outcome adds to the order (docs/payment-states.md): a success is
 * `Settled` at once (the gateway sells in one step), a failure `Declined`; redirect, pending and unknown
 * add nothing yet, the order waits in ArrangingPayment for the signed answer.
 */
const PAYMENT_STATE: Record<PaymentOutcomeStatus, 'Settled' | 'Declined' | undefined> = {
  succeeded: 'Settled',
  failed: 'Declined',
  redirect: undefined,
  pending: undefined,
  unknown: undefined,
};

export function paymentStateFor(outcome: PaymentOutcome): 'Settled' | 'Declined' | undefined {
  return PAYMENT_STATE[outcome.status];
}
