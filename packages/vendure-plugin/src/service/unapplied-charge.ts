import type { Repository } from 'typeorm';
import { type GatewaykitPaymentAttempt, OPEN_SLOT } from '../entity/payment-attempt.entity';
import { conditionalUpdate } from './attempt-claim';

/**
 * A charge the gateway took that Vendure could not add to the order (a coupon ended, stock gone, the
 * method disabled: docs/SECURITY.md §6). The attempt is `succeeded` and keeps the order's open slot,
 * so neither a second gateway charge nor another method can pay the order again until the merchant
 * has refunded it or added the payment by hand and released the order (close-attempt.service.ts).
 */

/** Start of the attempt's message while its charge is not on the order. */
export const UNAPPLIED_MESSAGE = 'charged but not applied to the order';

/** The return's `payment` status for such a charge (docs/storefront-return-page.md). */
export const NOT_APPLIED_STATUS = 'not_applied';

/** What the shopper is told, at the charge and at every later try to pay the order. */
export const UNAPPLIED_ANSWER =
  'Your payment was received but could not be applied to the order; the shop has been alerted and nothing more will be charged';

export function isUnappliedCharge(attempt: Pick<GatewaykitPaymentAttempt, 'status' | 'openSlot'>): boolean {
  return attempt.status === 'succeeded' && attempt.openSlot === OPEN_SLOT;
}

/**
 * The merchant's release of the order: the slot is freed (the attempt stays succeeded) by the writer
 * holding the version it read, so two releases at once free it once.
 */
export async function releaseUnappliedCharge(
  repo: Repository<GatewaykitPaymentAttempt>,
  attempt: GatewaykitPaymentAttempt,
): Promise<boolean> {
  if (!isUnappliedCharge(attempt)) return false;
  return (await conditionalUpdate(repo, attempt, { openSlot: null })) === 1;
}
