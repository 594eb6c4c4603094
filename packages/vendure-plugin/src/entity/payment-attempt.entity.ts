import { type DeepPartial, VendureEntity } from '@vendure/core';
import { Column, Entity, Index } from 'typeorm';

export type AttemptStatus =
  | 'started'
  | 'redirect'
  | 'pending'
  | 'unknown'
  | 'succeeded'
  | 'failed'
  /** Not a gateway attempt: another payment method's payment in flight holds the order's slot (other-method-hold.ts). */
  | 'held';

/**
 * Attempts that may hold money or block their order: sent, no final answer heard. Unlike a gateway
 * page (`redirect`), which the shopper may never have paid on, each may still be charged.
 */
export const OWED_STATUSES: readonly AttemptStatus[] = ['started', 'pending', 'unknown'];

/** Value of `openSlot` while an attempt may still turn into a charge. */
export const OPEN_SLOT = 'open';

/**
 * One payment attempt sent to the gateway (one gateway orderNo). It lets callbacks and returns find
 * their order and channel, carries the amount and currency they must match, and is the database-level
 * dedupe record: its status only moves forward, through a versioned conditional update.
 * The unique (orderId, openSlot) index is the per-order charge claim: at most one attempt per order
 * may hold `openSlot = 'open'` (NULLs never collide), across server instances sharing the database.
 */
@Entity()
@Index('IDX_gatewaykit_attempt_open_slot', ['orderId', 'openSlot'], { unique: true })
export class GatewaykitPaymentAttempt extends VendureEntity {
  constructor(input?: DeepPartial<GatewaykitPaymentAttempt>) {
    super(input);
  }

  @Index({ unique: true })
  @Column({ type: 'varchar', length: 50 })
  orderNo: string;

  @Column({ type: 'varchar' })
  orderId: string;

  @Column({ type: 'varchar' })
  orderCode: string;

  @Column({ type: 'varchar' })
  channelId: string;

  @Column({ type: 'varchar' })
  paymentMethodCode: string;

  @Column({ type: 'varchar', length: 16 })
  mode: string;

  /** Vendure minor units (the amount recorded on the Payment). */
  @Column({ type: 'integer' })
  amount: number;

  /** The exact `orderAmount` string sent to the gateway. */
  @Column({ type: 'varchar', length: 20 })
  orderAmount: string;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  @Column({ type: 'varchar', length: 16 })
  status: AttemptStatus;

  @Column({ type: 'varchar', nullable: true })
  tradeNo: string | null;

  @Column({ type: 'varchar', nullable: true })
  maskCardNo: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  message: string | null;

  /**
   * OPEN_SLOT while the gateway's answer is owed (started, redirect, pending, unknown) or another
   * method's payment is in flight (held); NULL once the attempt is final or provably dead, which frees
   * the order for a new attempt.
   */
  @Column({ type: 'varchar', length: 8, nullable: true })
  openSlot: string | null;

  /**
   * Money of this attempt's trade given back at the gateway while no Payment held it: a portal refund's
   * batchNo, or `chargeback <batchNo>`. A success recorded afterwards never settles the order
   * (payment-recorder.service.ts); the merchant is told instead.
   */
  @Column({ type: 'varchar', length: 200, nullable: true })
  returnedAtGateway: string | null;

  /** Optimistic-lock counter for the conditional status update. */
  @Column({ type: 'integer', default: 0 })
  version: number;
}
