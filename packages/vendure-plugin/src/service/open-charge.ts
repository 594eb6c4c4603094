import type { ID, RequestContext, TransactionalConnection } from '@vendure/core';
import { In } from 'typeorm';
import { GatewaykitPaymentAttempt, OPEN_SLOT, OWED_STATUSES } from '../entity/payment-attempt.entity';

/**
 * The order's gateway charge that may still take the shopper's money (started, pending or unknown,
 * holding the order's open slot), if any. While it exists the order must not be paid another way.
 */
export function openGatewayCharge(
  connection: TransactionalConnection,
  ctx: RequestContext,
  orderId: ID,
): Promise<GatewaykitPaymentAttempt | null> {
  return connection.getRepository(ctx, GatewaykitPaymentAttempt).findOne({
    where: { orderId: String(orderId), openSlot: OPEN_SLOT, status: In([...OWED_STATUSES]) },
  });
}
