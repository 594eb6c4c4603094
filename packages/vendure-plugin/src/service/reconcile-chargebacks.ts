import type { Repository } from 'typeorm';
import type { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';

/** A channel's payment method that took money through the gateway: whose chargebacks may be listed. */
export interface ChargebackSource {
  channelId: string;
  paymentMethodCode: string;
}

/**
 * The channels' methods with at least one succeeded attempt (only a paid trade can be charged back),
 * each once; one channel's when the Admin API run names it. Their gateway accounts' chargeback lists are
 * what the run reads (ReconcileService).
 */
export async function chargebackSources(
  repo: Repository<GatewaykitPaymentAttempt>,
  channelId?: string,
): Promise<ChargebackSource[]> {
  const query = repo
    .createQueryBuilder('attempt')
    .select('attempt.channelId', 'channelId')
    .addSelect('attempt.paymentMethodCode', 'paymentMethodCode')
    .distinct(true)
    .where('attempt.status = :status', { status: 'succeeded' });
  if (channelId !== undefined) query.andWhere('attempt.channelId = :channelId', { channelId });
  const rows = await query.getRawMany<{ channelId: unknown; paymentMethodCode: unknown }>();
  return rows.map((row) => ({
    channelId: String(row.channelId),
    paymentMethodCode: String(row.paymentMethodCode),
  }));
}
