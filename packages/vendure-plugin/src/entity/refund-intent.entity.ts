import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A gateway refund about to be sent, written and committed on its own before the request leaves
 * (service/refund-intents.ts, docs/safety-rules.md#refund-intents). Vendure saves its Refund only when
 * the admin request's transaction commits; should that roll back after the gateway took the refund,
 * this row is what is left of it, so the refund is never sent again.
 */
@Entity('gatewaykit_refund_intent')
@Index('IDX_gatewaykit_refund_intent_payment', ['paymentId'])
export class GatewaykitRefundIntent {
  // Named so the generated migration and the entity agree on the constraint.
  @PrimaryColumn({ type: 'varchar', length: 100, primaryKeyConstraintName: 'PK_gatewaykit_refund_intent' })
  merTrackNo: string;

  @Column({ type: 'varchar' })
  paymentId: string;

  @Column({ type: 'varchar' })
  orderId: string;

  /** The gateway amount sent, in `currency`. */
  @Column({ type: 'varchar', length: 20 })
  refundAmount: string;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  /**
   * The gateway's refund number, once its answer gave one (written on its own, as the intent is): the
   * reconciliation reads the refund back by it when the record was lost and no notice came.
   */
  @Column({ type: 'varchar', length: 64, nullable: true })
  batchNo: string | null;

  /**
   * How it ended (service/refund-intents.ts, RefundIntentAnswer): `recorded` when its Refund was saved;
   * for one whose record was lost, what its notice or read-back said (`succeeded`, `failed`), what the
   * gateway's own answer said (`refused`, `failed`), or `closed` by an administrator. Null while nothing
   * has ended it: one no Refund holds then blocks its payment's refunds.
   */
  @Column({ type: 'varchar', length: 16, nullable: true })
  answer: string | null;

  @CreateDateColumn()
  createdAt: Date;
}
