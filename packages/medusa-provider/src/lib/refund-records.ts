import type { SqlDatabase } from './charge-claim';
import type { GatewayRefund } from './gateway-records';
import { PaymentDataWrites } from './payment-data-writes';

/**
 * A refund's entry in its payment's data, written in a statement of its own before the refund request
 * leaves (docs/safety-rules.md#refund-intents). Medusa commits its refund row before it calls the
 * provider, but deletes the row again when anything fails after the provider returned (its write of the
 * provider's answer, say): a refund the gateway made would then leave no trace in Medusa, and a new
 * refund could return the same money twice. The entry stays, `unknown` until the answer or a notice
 * settles it, and blocks every further refund of the payment while no refund row holds it (lostRecords).
 */
export class RefundRecords {
  private readonly writes: PaymentDataWrites;

  constructor(db: Pick<SqlDatabase, 'raw'>) {
    this.writes = new PaymentDataWrites(db);
  }

  /** Adds `entry` to payment `paymentId`'s refunds; false when no such payment row was written. */
  async recordSending(paymentId: string, entry: GatewayRefund): Promise<boolean> {
    return this.writes.addRefunds(paymentId, [entry]);
  }

  /** The request's answer on the entry still waiting for it (PaymentDataWrites.answerSending). */
  async recordAnswer(paymentId: string, entry: GatewayRefund): Promise<void> {
    await this.writes.answerSending(paymentId, entry);
  }

  /** Takes refund `merTrackNo` out again: the gateway refused it, so Medusa deletes its row and nothing was made. */
  async dropRefused(paymentId: string, merTrackNo: string): Promise<void> {
    await this.writes.removeRefund(paymentId, merTrackNo);
  }
}

/**
 * The payment data's refunds that no Medusa refund row holds and that did not fail: sent to the gateway
 * (they may have returned money) with their record lost. `rowIds`: the payment's refund rows.
 */
export function lostRecords(
  refunds: readonly GatewayRefund[] | undefined,
  rowIds: ReadonlySet<string>,
): GatewayRefund[] {
  return (refunds ?? []).filter((refund) => refund.status !== 'failed' && !rowIds.has(refund.merTrackNo));
}
