import type { PaymentOutcome, PaymentOutcomeStatus } from '@gatewaykit/core';
import type { PaymentSessionStatus } from '@medusajs/framework/types';

/**
 * What a gateway outcome means for a Medusa payment session (docs/payment-states.md). The gateway sells
 * in one step, so a success is `captured` at once; an unknown outcome stays `pending`, never `error`:
 * the charge may exist and its callback decides.
 */
const SESSION_STATUS: Record<PaymentOutcomeStatus, PaymentSessionStatus> = {
  succeeded: 'captured',
  redirect: 'requires_more',
  pending: 'pending_authorization',
  failed: 'error',
  unknown: 'pending',
};

export function sessionStatusFor(outcome: PaymentOutcome | undefined): PaymentSessionStatus {
  return outcome ? SESSION_STATUS[outcome.status] : 'pending';
}
