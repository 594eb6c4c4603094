import type { ID } from '@vendure/core';
import { type FindOptionsWhere, In, MoreThan, type Repository } from 'typeorm';
import { type GatewaykitPaymentAttempt, OWED_STATUSES } from '../entity/payment-attempt.entity';
import { OPEN_ATTEMPT_BLOCK_MS } from './attempt-claim';
import { attemptClockNow } from './attempt-clock';

/** Where-clause of the order's attempts owed an answer (started, pending, unknown): each may have taken money. */
export function owedAttemptsOf(orderId: ID): FindOptionsWhere<GatewaykitPaymentAttempt> {
  return { orderId: String(orderId), status: In([...OWED_STATUSES]) };
}

/**
 * The order's gateway charge that may still take the shopper's money, if any: one owed an answer
 * (started, pending, unknown), whether or not it still holds the order's open slot (a page released
 * after the block window can still turn pending), or a gateway page opened within the block window
 * (3-D Secure, hosted, local: one click from a charge). While it exists the order must not be paid
 * another way.
 */
export function openGatewayCharge(
  repo: Repository<GatewaykitPaymentAttempt>,
  orderId: ID,
  now: number = attemptClockNow(),
): Promise<GatewaykitPaymentAttempt | null> {
  const order = String(orderId);
  return repo.findOne({
    where: [
      owedAttemptsOf(order),
      { orderId: order, status: 'redirect', createdAt: MoreThan(new Date(now - OPEN_ATTEMPT_BLOCK_MS)) },
    ],
  });
}
