/** DESIGN §5: what a payment outcome means on each platform. One table, used by both adapters. */
import type { PaymentOutcome, PaymentOutcomeStatus } from './outcome.js';

export type MedusaSessionStatus =
  | 'captured'
  | 'requires_more'
  | 'pending_authorization'
  | 'error'
  | 'pending';
export type VendurePaymentState = 'Settled' | 'Declined' | undefined;

export const STATUS_TABLE: Record<
  PaymentOutcomeStatus,
  { medusa: MedusaSessionStatus; vendure: VendurePaymentState }
> = {
  // The gateway sells (no separate capture), so success is captured / Settled at once.
  succeeded: { medusa: 'captured', vendure: 'Settled' },
  redirect: { medusa: 'requires_more', vendure: undefined },
  pending: { medusa: 'pending_authorization', vendure: undefined },
  failed: { medusa: 'error', vendure: 'Declined' },
  // Unknown outcome never becomes an error: the charge may exist, the callback decides.
  unknown: { medusa: 'pending', vendure: undefined },
};

export function medusaStatusFor(outcome: PaymentOutcome): MedusaSessionStatus {
  return STATUS_TABLE[outcome.status].medusa;
}

/** Vendure payment state to add, or undefined when no payment should be added yet. */
export function vendureStateFor(outcome: PaymentOutcome): VendurePaymentState {
  return STATUS_TABLE[outcome.status].vendure;
}
