import type { RefundEvent as GatewayRefundEvent } from '@gatewaykit/core';
import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import {
  EventBus,
  type ID,
  Refund,
  RefundEvent,
  type RequestContext,
  TransactionalConnection,
} from '@vendure/core';
import { IsNull, type Repository } from 'typeorm';
import { GatewaykitRefundIntent } from '../entity/refund-intent.entity';
import { readingCommitted, singleConnection } from './attempt-lock';
import { refundMetadataOf } from './refund-notice';
import type { EarlierRefund } from './refund-request';

/** What a refund that is about to be sent leaves behind, whatever happens to the admin's transaction. */
export interface RefundIntent {
  merTrackNo: string;
  paymentId: ID;
  orderId: ID;
  refundAmount: string;
  currency: string;
}

/**
 * How an intent ended: `recorded` (its Refund was saved, in the same transaction); or, for one no Refund
 * holds, its notice (or the reconciliation's read-back) said `succeeded` or `failed`, the gateway's own
 * answer said `refused` or `failed` (nothing was refunded), or an administrator `closed` it after looking
 * it up in the merchant portal. Only an intent no Refund holds and without an answer blocks the
 * payment's refunds.
 */
export type RefundIntentAnswer = 'recorded' | 'succeeded' | 'failed' | 'refused' | 'closed';

/**
 * The longest the intent's write may wait. On a server database it needs a second pooled connection
 * while the admin request holds one and its order's row lock: with the pool taken by requests waiting
 * for that lock, waiting longer would stall the instance. Past it the refund is refused, nothing sent.
 */
const RECORD_TIMEOUT_MS = 5_000;

/**
 * Refund intents (docs/safety-rules.md#refund-intents): before a gateway refund is sent, its merchant
 * refund id is committed in a statement of its own, outside the admin request's transaction. Vendure
 * saves the Refund only when that transaction commits; if it rolls back after the gateway took the
 * refund (an error later in the request, a process that died), the intent is left without a Refund,
 * and every later refund of the payment is refused until the refund's notice says how it ended, or an
 * administrator closes it: the same refund is never sent twice, whatever the gateway does with a
 * merchant refund id it has seen.
 *
 * On an embedded database (sql.js, SQLite: one connection) the statement shares the admin transaction,
 * so a rollback takes the intent with it there.
 */
@Injectable()
export class RefundIntents implements OnApplicationBootstrap {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly eventBus: EventBus,
  ) {}

  onApplicationBootstrap(): void {
    // Blocking: runs inside the admin request right after Vendure saved the Refund, before its commit.
    this.eventBus.registerBlockingEventHandler({
      event: RefundEvent,
      id: 'gatewaykit-refund-intent-held',
      handler: async (event) => {
        const merTrackNo = (event.refund.metadata as { merTrackNo?: unknown } | undefined)?.merTrackNo;
        if (event.type === 'created' && typeof merTrackNo === 'string')
          await this.held(event.ctx, merTrackNo);
      },
    });
  }

  /** Commits the intent now (server databases), before the request leaves; throws past the bound. */
  async record(ctx: RequestContext, intent: RefundIntent): Promise<void> {
    const row = {
      ...intent,
      paymentId: String(intent.paymentId),
      orderId: String(intent.orderId),
      batchNo: null,
      answer: null,
    };
    await withinBound(this.ownStatement(ctx).insert(row));
  }

  /**
   * Records what the gateway's own answer said of a refund that was not made (refused, or failed at
   * once), in a statement of its own: should the admin transaction roll back, the intent does not block.
   */
  async answered(ctx: RequestContext, merTrackNo: string, answer: 'refused' | 'failed'): Promise<void> {
    await withinBound(this.ownStatement(ctx).update({ merTrackNo, answer: IsNull() }, { answer }));
  }

  /** Keeps the gateway's refund number with the intent, in a statement of its own (for the reconciliation). */
  async numbered(ctx: RequestContext, merTrackNo: string, batchNo: string): Promise<void> {
    await withinBound(this.ownStatement(ctx).update({ merTrackNo }, { batchNo }));
  }

  /**
   * Intents nothing ended, created between `from` and `to`, oldest first (or `newestFirst`), those the gateway numbered
   * (`numbered`: it can be read back by batchNo) or those whose answer was lost too: refunds whose record
   * was lost (a saved Refund marks its intent `recorded`), which the reconciliation reads back or hands
   * to a person.
   */
  unanswered(
    from: Date,
    to: Date,
    numbered: boolean,
    limit: number,
    newestFirst = false,
  ): Promise<GatewaykitRefundIntent[]> {
    if (limit <= 0) return Promise.resolve([]);
    return this.connection.rawConnection
      .getRepository(GatewaykitRefundIntent)
      .createQueryBuilder('intent')
      .where('intent.answer IS NULL')
      .andWhere(numbered ? 'intent.batchNo IS NOT NULL' : 'intent.batchNo IS NULL')
      .andWhere('intent.createdAt BETWEEN :from AND :to', { from, to })
      .orderBy('intent.createdAt', newestFirst ? 'DESC' : 'ASC')
      .take(limit)
      .getMany();
  }

  /**
   * The intents of the payment no Refund holds (by merTrackNo): refunds sent whose record was lost.
   * `refunds` are the payment's refunds as read inside its refund section (refund-lock.ts), where the
   * intents are read too (MySQL: a locking read, to see those committed since the transaction began).
   */
  async unheld(
    ctx: RequestContext,
    paymentId: ID,
    refunds: readonly EarlierRefund[],
  ): Promise<GatewaykitRefundIntent[]> {
    const held = new Set(
      refunds.map((refund) => (refund.metadata as { merTrackNo?: unknown } | null | undefined)?.merTrackNo),
    );
    const query = this.connection
      .getRepository(ctx, GatewaykitRefundIntent)
      .createQueryBuilder('intent')
      .where('intent.paymentId = :paymentId', { paymentId: String(paymentId) })
      .orderBy('intent.createdAt', 'ASC');
    const intents = await readingCommitted(query, this.connection.rawConnection).getMany();
    return intents.filter((intent) => !held.has(intent.merTrackNo));
  }

  /**
   * Records what the notice of a refund no Refund holds said (or the reconciliation's read-back), on the
   * intent of that merTrackNo if it belongs to `paymentId` (the payment of the notice's trade), unless
   * it has an answer already; returns the intent with its answer, the first one standing.
   */
  async answer(
    ctx: RequestContext,
    paymentId: ID,
    event: GatewayRefundEvent,
  ): Promise<GatewaykitRefundIntent | undefined> {
    if (!event.merTrackNo) return undefined;
    const repository = this.connection.getRepository(ctx, GatewaykitRefundIntent);
    const intent = await repository.findOne({ where: { merTrackNo: event.merTrackNo } });
    if (!intent || intent.paymentId !== String(paymentId)) return undefined;
    if (intent.answer === null) {
      intent.answer = event.status === 'succeeded' ? 'succeeded' : 'failed';
      await repository.update({ merTrackNo: intent.merTrackNo }, { answer: intent.answer });
    }
    return intent;
  }

  /**
   * Marks the intent its Refund now holds, in the admin transaction that saves that Refund (Vendure's
   * RefundEvent, published inside it): committed with the Refund, rolled back with it. The
   * reconciliation then reads back only intents whose record was lost.
   */
  async held(ctx: RequestContext, merTrackNo: string): Promise<void> {
    await this.connection
      .getRepository(ctx, GatewaykitRefundIntent)
      .update({ merTrackNo, answer: IsNull() }, { answer: 'recorded' satisfies RefundIntentAnswer });
  }

  /**
   * Marks `recorded` an intent the run found a Refund holding: Vendure publishes no RefundEvent for some
   * saved Refunds (the further payments of one refundOrder, a refund whose state transition failed).
   * A committed Refund is never deleted, so it holds the intent for good.
   */
  async recordedAfterAll(merTrackNo: string): Promise<void> {
    await this.connection.rawConnection
      .getRepository(GatewaykitRefundIntent)
      .update({ merTrackNo, answer: IsNull() }, { answer: 'recorded' satisfies RefundIntentAnswer });
  }

  /** The intent's answer as stored now (null: none yet; undefined: no such intent). */
  async answerOf(merTrackNo: string): Promise<string | null | undefined> {
    const intent = await this.connection.rawConnection
      .getRepository(GatewaykitRefundIntent)
      .findOne({ where: { merTrackNo } });
    return intent ? intent.answer : undefined;
  }

  /**
   * Whether the intent is still a refund whose record was lost, read in `ctx`'s transaction (the
   * caller holds the order's exclusive section): nothing answered it and no Refund holds it.
   */
  async stillLost(ctx: RequestContext, intent: GatewaykitRefundIntent): Promise<boolean> {
    const now = await this.connection
      .getRepository(ctx, GatewaykitRefundIntent)
      .findOne({ where: { merTrackNo: intent.merTrackNo } });
    if (!now || now.answer !== null) return false;
    const refunds = await this.connection
      .getRepository(ctx, Refund)
      .find({ where: { paymentId: intent.paymentId } });
    return !refunds.some((refund) => refundMetadataOf(refund).merTrackNo === intent.merTrackNo);
  }

  /** Closes an intent no Refund holds and nothing answered (the caller holds the payment's refund section). */
  async close(ctx: RequestContext, intent: GatewaykitRefundIntent): Promise<void> {
    await this.connection
      .getRepository(ctx, GatewaykitRefundIntent)
      .update({ merTrackNo: intent.merTrackNo }, { answer: 'closed' satisfies RefundIntentAnswer });
  }

  /** Outside the admin transaction on a server database: a pooled connection in autocommit. */
  private ownStatement(ctx: RequestContext): Repository<GatewaykitRefundIntent> {
    return singleConnection(this.connection.rawConnection)
      ? this.connection.getRepository(ctx, GatewaykitRefundIntent)
      : this.connection.rawConnection.getRepository(GatewaykitRefundIntent);
  }
}

/** The own statements wait at most RECORD_TIMEOUT_MS; a late failure past it changes nothing. */
async function withinBound<T>(statement: Promise<T>): Promise<T> {
  statement.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no database connection within ${RECORD_TIMEOUT_MS / 1000} s`)),
      RECORD_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([statement, bound]);
  } finally {
    clearTimeout(timer);
  }
}
