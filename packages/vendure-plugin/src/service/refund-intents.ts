import type { RefundEvent } from '@gatewaykit/core';
import { Injectable } from '@nestjs/common';
import { type ID, type RequestContext, TransactionalConnection } from '@vendure/core';
import { GatewaykitRefundIntent } from '../entity/refund-intent.entity';
import { singleConnection } from './attempt-lock';
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
 * Refund intents (docs/safety-rules.md#refund-intents): before a gateway refund is sent, its merchant
 * refund id is committed in a statement of its own, outside the admin request's transaction. Vendure
 * saves the Refund only when that transaction commits; if it rolls back after the gateway took the
 * refund (an error later in the request, a process that died), the intent is left without a Refund,
 * and every later refund of the payment is refused until the refund's notice says how it ended: the
 * same refund is never sent twice, whatever the gateway does with a merchant refund id it has seen.
 *
 * On the embedded sql.js demo database the statement shares the admin transaction (one connection),
 * so a rollback takes the intent with it there.
 */
@Injectable()
export class RefundIntents {
  constructor(private readonly connection: TransactionalConnection) {}

  /** Commits the intent now (server databases), before the request leaves. */
  async record(ctx: RequestContext, intent: RefundIntent): Promise<void> {
    const row = {
      ...intent,
      paymentId: String(intent.paymentId),
      orderId: String(intent.orderId),
      answer: null,
    };
    const repository = singleConnection(this.connection.rawConnection)
      ? this.connection.getRepository(ctx, GatewaykitRefundIntent)
      : // The data source's own manager: a pooled connection in autocommit, not the admin's transaction.
        this.connection.rawConnection.getRepository(GatewaykitRefundIntent);
    await repository.insert(row);
  }

  /**
   * The intents of the payment no Refund holds (by merTrackNo): refunds sent whose record was lost.
   * `refunds` are the payment's refunds as read inside its refund section (refund-lock.ts).
   */
  async unheld(
    ctx: RequestContext,
    paymentId: ID,
    refunds: readonly EarlierRefund[],
  ): Promise<GatewaykitRefundIntent[]> {
    const held = new Set(
      refunds.map((refund) => (refund.metadata as { merTrackNo?: unknown } | null | undefined)?.merTrackNo),
    );
    const intents = await this.connection
      .getRepository(ctx, GatewaykitRefundIntent)
      .find({ where: { paymentId: String(paymentId) }, order: { createdAt: 'ASC' } });
    return intents.filter((intent) => !held.has(intent.merTrackNo));
  }

  /**
   * Records what the notice of a refund no Refund holds said, on the payment's intent of that
   * merTrackNo, if there is one not answered yet; returns it.
   */
  async answer(
    ctx: RequestContext,
    paymentIds: readonly ID[],
    event: RefundEvent,
  ): Promise<GatewaykitRefundIntent | undefined> {
    if (!event.merTrackNo || paymentIds.length === 0) return undefined;
    const repository = this.connection.getRepository(ctx, GatewaykitRefundIntent);
    const intent = await repository.findOne({ where: { merTrackNo: event.merTrackNo } });
    if (!intent || !paymentIds.map(String).includes(intent.paymentId)) return undefined;
    if (intent.answer === null) {
      intent.answer = event.status === 'succeeded' ? 'succeeded' : 'failed';
      await repository.update({ merTrackNo: intent.merTrackNo }, { answer: intent.answer });
    }
    return intent;
  }
}
