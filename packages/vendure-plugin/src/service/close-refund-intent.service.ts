import { redactText } from '@gatewaykit/core';
import { Injectable } from '@nestjs/common';
import { Logger, OrderService, type RequestContext, TransactionalConnection } from '@vendure/core';
import { loggerCtx } from '../constants';
import { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import { GatewaykitRefundIntent } from '../entity/refund-intent.entity';
import { RefundIntents } from './refund-intents';
import { RefundLock } from './refund-lock';

export interface CloseRefundIntentReport {
  closed: boolean;
  reason: string;
}

/**
 * The merchant's way out of a refund whose record was lost (docs/safety-rules.md#refund-intents): once
 * the merchant portal shows how it ended and no notice will say it (never sent, notices exhausted), an
 * administrator closes its intent with a note, and the payment's refunds go through Vendure again. Decided
 * inside the payment's refund section (refund-lock.ts), so no refund of the payment is on its way. A
 * notice that comes later still keeps a refund that was made (as one Vendure does not count). Only
 * intents of orders paid in the admin's channel: a permission is granted per channel.
 */
@Injectable()
export class CloseRefundIntentService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly intents: RefundIntents,
    private readonly lock: RefundLock,
    private readonly orderService: OrderService,
  ) {}

  async close(ctx: RequestContext, merTrackNo: string, note: string): Promise<CloseRefundIntentReport> {
    const intent = await this.connection
      .getRepository(ctx, GatewaykitRefundIntent)
      .findOne({ where: { merTrackNo } });
    const ownChannel =
      intent &&
      (await this.connection.getRepository(ctx, GatewaykitPaymentAttempt).exists({
        where: { orderId: intent.orderId, channelId: String(ctx.channelId) },
      }));
    // Another channel's intent is answered like a missing one: its existence is not this admin's to know.
    if (!intent || !ownChannel) return { closed: false, reason: `no refund ${merTrackNo} in this channel` };
    return this.lock.forPayment(
      ctx,
      { paymentId: intent.paymentId, orderId: intent.orderId },
      async (refunds) => {
        const [lost] = (await this.intents.unheld(ctx, intent.paymentId, refunds)).filter(
          (unheld) => unheld.merTrackNo === merTrackNo,
        );
        if (!lost)
          return { closed: false, reason: `refund ${merTrackNo} is recorded in Vendure: nothing to close` };
        if (lost.answer !== null)
          return { closed: false, reason: `refund ${merTrackNo} is already ${lost.answer}` };
        await this.intents.close(ctx, lost);
        const who = ctx.session?.user?.identifier ?? `user ${String(ctx.activeUserId ?? '?')}`;
        const text = redactText(
          `Refund ${merTrackNo} (${lost.refundAmount} ${lost.currency}, sent ${lost.createdAt.toISOString()} with no record here) ` +
            `closed by ${who}: ${note.trim()}. Refunds of this payment go through Vendure again; should its notice ` +
            'still say it was made, it is kept as a refund Vendure does not count.',
        );
        Logger.info(`Refund intent ${merTrackNo}: ${text}`, loggerCtx);
        await this.orderService.addNoteToOrder(ctx, { id: lost.orderId, note: text, isPublic: false });
        return {
          closed: true,
          reason: `refund ${merTrackNo} closed: the payment refunds through Vendure again`,
        };
      },
    );
  }
}
