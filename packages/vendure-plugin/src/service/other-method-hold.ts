import { randomUUID } from 'node:crypto';
import { RecordLaterError } from '@gatewaykit/core';
import type { ID } from '@vendure/core';
import type { Repository } from 'typeorm';
import type { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import { claimOpenSlot, releaseDeadClaims } from './attempt-claim';
import { attemptClockNow } from './attempt-clock';
import { openGatewayCharge } from './open-charge';

/** What the checkout tells a shopper whose card payment meets another method's payment in flight. */
export const OTHER_METHOD_IN_FLIGHT =
  'Another payment for this order is in progress: wait for its result before paying by card';

/**
 * A gateway success met another method's hold on its order (order-attempts.ts, takeSlotBack): that
 * payment may be taking the shopper's money right now, so this success is not recorded yet. A callback
 * is answered as failed and comes again (the gateway's retries, the reconciliation), a return sends the
 * shopper on as the attempt stands (core's RecordLaterError); by then the other payment has answered,
 * and the success either pays the order or is flagged as charged but not applied, never silently added
 * beside it.
 */
export class OrderHeldByOtherMethodError extends RecordLaterError {
  constructor(orderCode: string, orderNo: string) {
    super(
      `order ${orderCode} is being paid by another payment method: the success of ${orderNo} is recorded once that payment has answered`,
    );
    this.name = 'OrderHeldByOtherMethodError';
  }
}

export type OtherMethodHold =
  | { held: true; release: () => Promise<void> }
  /** `by` is the gateway attempt (or another method's hold) that keeps the order, when readable. */
  | { held: false; by: GatewaykitPaymentAttempt | undefined };

/**
 * Holds the order's open slot (attempt-claim.ts) for another payment method's `addPaymentToOrder`
 * while it runs, so a gateway charge cannot start for the order meanwhile: the database's unique
 * (orderId, openSlot) index orders the two across every instance, where a read before Vendure's own
 * transaction could not (docs/SECURITY.md §5). Refused while a gateway charge holds the slot, or is
 * owed an answer without it (a page released after its window that turned pending). The hold is a
 * `held` row, never sent to the gateway: `release` deletes it once the payment has answered, and a
 * request killed meanwhile leaves one that expires after OTHER_METHOD_HOLD_MS.
 */
export async function holdOrderForOtherMethod(
  repo: Repository<GatewaykitPaymentAttempt>,
  order: { id: ID; code: string; currencyCode: string },
  channelId: ID,
  methodCode: string,
  now: number = attemptClockNow(),
  /** Where the returned `release` deletes the hold: a repository that outlives `repo`'s connection. */
  releaseRepo: Repository<GatewaykitPaymentAttempt> = repo,
): Promise<OtherMethodHold> {
  const orderId = String(order.id);
  const claimSlot = () =>
    claimOpenSlot(
      repo,
      {
        orderNo: `held-${randomUUID()}`,
        orderId,
        orderCode: order.code,
        channelId: String(channelId),
        paymentMethodCode: methodCode,
        mode: 'other-method',
        amount: 0,
        orderAmount: '0',
        currency: order.currencyCode,
      },
      'held',
    );
  let claim = await claimSlot();
  // A page past its window (or a hold left by a killed request) no longer keeps the order.
  if (!claim.claimed && (await releaseDeadClaims(repo, orderId, now)) > 0) claim = await claimSlot();
  if (!claim.claimed) return { held: false, by: claim.open };
  const { id } = claim.attempt;
  const releaseNow = async () => {
    await repo.delete({ id });
  };
  let owed: GatewaykitPaymentAttempt | null;
  try {
    owed = await openGatewayCharge(repo, order.id, now);
  } catch (error) {
    // Not left holding the order for OTHER_METHOD_HOLD_MS because a read failed.
    await releaseNow().catch(() => undefined);
    throw error;
  }
  if (owed) {
    await releaseNow();
    return { held: false, by: owed };
  }
  return {
    held: true,
    release: async () => {
      await releaseRepo.delete({ id });
    },
  };
}
