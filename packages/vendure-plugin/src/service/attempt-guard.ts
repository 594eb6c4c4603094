import { attemptOrderNo, type CheckoutFlow, checkoutFlowOf, GatewayValidationError } from '@gatewaykit/core';
import { Not, type Repository } from 'typeorm';
import type { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import { claimOpenSlot, closeUnsent, releaseDeadClaims } from './attempt-claim';
import type { FlowConfig } from './charge-source';
import { owedAttemptsOf } from './open-charge';
import { isUnappliedCharge } from './unapplied-charge';

/**
 * Numbers an order's next attempt and lets it reach the gateway only while it holds the order's open
 * slot (attempt-claim.ts): at most one charge per order in flight (docs/SECURITY.md, exactly once).
 */

/** The stored attempt row apart from its orderNo, which is numbered here. */
export interface AttemptDetails {
  orderId: string;
  orderCode: string;
  channelId: string;
  paymentMethodCode: string;
  mode: string;
  /** Vendure minor units. */
  amount: number;
  /** The exact orderAmount sent to the gateway. */
  orderAmount: string;
  currency: string;
}

export type NextAttempt =
  | { claimed: true; orderNo: string; attempt: GatewaykitPaymentAttempt }
  /**
   * `orderNo` is the attempt holding the order, or the refused one when the holder cannot be read;
   * `otherMethod` when the holder is another payment method's payment in flight (other-method-hold.ts),
   * `unapplied` when it is a charge Vendure could not add to the order (unapplied-charge.ts).
   */
  | { claimed: false; orderNo: string; otherMethod: boolean; unapplied: boolean };

/** The attempt's `mode` column: the flow, and the local method for local payments. */
export function attemptMode(config: FlowConfig): string {
  return config.mode === 'local' ? `local:${config.localMethod}` : config.mode;
}

/** The flow of an attempt's `mode` column (attemptMode); undefined for a value it never wrote. */
export function flowOfAttemptMode(mode: string): CheckoutFlow | undefined {
  return checkoutFlowOf(mode.split(':')[0]);
}

/**
 * Frees expired redirect claims, then inserts attempt n+1 (`CODE-n`, core's attemptOrderNo) holding
 * the open slot, and gives it up again while another attempt is owed an answer without the slot.
 * Numbering counts every gateway attempt, closed ones too, so an orderNo is never sent twice; other
 * methods' holds are not attempts (and are deleted once their payment has answered).
 */
export async function claimNextAttempt(
  repo: Repository<GatewaykitPaymentAttempt>,
  details: AttemptDetails,
): Promise<NextAttempt> {
  await releaseDeadClaims(repo, details.orderId);
  const count = await repo.count({ where: { orderId: details.orderId, status: Not('held') } });
  const orderNo = attemptOrderNo(details.orderCode, count + 1);
  const claim = await claimOpenSlot(repo, { orderNo, ...details });
  if (!claim.claimed) {
    const otherMethod = claim.open?.status === 'held';
    return {
      claimed: false,
      orderNo: otherMethod ? orderNo : (claim.open?.orderNo ?? orderNo),
      otherMethod,
      unapplied: claim.open ? isUnappliedCharge(claim.open) : false,
    };
  }
  // A page released after its window that turned pending since holds no slot, yet may still be
  // charged (open-charge.ts): checked under the new claim, which is then closed without a charge.
  const owed = await repo.findOne({
    where: { ...owedAttemptsOf(details.orderId), id: Not(claim.attempt.id) },
  });
  if (owed) {
    await closeUnsent(repo, claim.attempt, `attempt ${owed.orderNo} may still be charged; nothing was sent`);
    return { claimed: false, orderNo: owed.orderNo, otherMethod: false, unapplied: false };
  }
  return { claimed: true, orderNo, attempt: claim.attempt };
}

export type SendResult<T> = { sent: true; outcome: T } | { sent: false; reason: string };

/**
 * Sends the claimed attempt. Core refuses an invalid request before anything goes out: then the
 * attempt is closed without a charge (no Declined payment) and the order is free to pay again.
 * Any other error may have reached the gateway and leaves the claim in place.
 */
export async function sendClaimed<T>(
  repo: Repository<GatewaykitPaymentAttempt>,
  attempt: GatewaykitPaymentAttempt,
  send: () => Promise<T>,
): Promise<SendResult<T>> {
  try {
    return { sent: true, outcome: await send() };
  } catch (e) {
    if (!(e instanceof GatewayValidationError)) throw e;
    await closeUnsent(repo, attempt, e.message);
    return { sent: false, reason: e.message };
  }
}
