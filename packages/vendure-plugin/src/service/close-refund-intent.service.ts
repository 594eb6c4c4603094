import { redactText } from '@gatewaykit/core';
import { Inject, Injectable } from '@nestjs/common';
import { Logger, Payment, type RequestContext, TransactionalConnection } from '@vendure/core';
import { GATEWAYKIT_PLUGIN_OPTIONS, loggerCtx } from '../constants';
import { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import { GatewaykitRefundIntent } from '../entity/refund-intent.entity';
import type { GatewaykitPluginOptions } from '../types';
import { attemptClockNow } from './attempt-clock';
import { administratorName, OrderNotes } from './order-notes.service';
import { reconcileSettings } from './reconcile-settings';
import { RefundIntents } from './refund-intents';
import { RefundLock } from './refund-lock';
import { keepUncountedRefund } from './uncounted-refund';

export interface CloseRefundIntentReport {
  closed: boolean;
  reason: string;
}

export interface CloseRefundIntentInput {
  merTrackNo: string;
  /** What the merchant portal shows: the refund was made, or not. */
  made: boolean;
  note: string;
}

/**
 * The merchant's way out of a refund whose record was lost (docs/safety-rules.md#refund-intents): once
 * the merchant portal shows how it ended and no notice will say it (never sent, notices exhausted), an
 * administrator closes its intent with a note, saying whether the portal shows it made:
 * - made: it is kept on the payment as a refund Vendure does not count, as its notice would have, so any
 *   more of the payment is refunded in the merchant portal (never the same money twice here);
 * - not made: the payment's refunds go through Vendure again, but only once the intent is older than
 *   `reconcile.notMadeCloseAfterMs` (the gateway has had its time to answer a request it was still processing). A
 *   notice that comes later still keeps a refund that was made.
 * Decided inside the payment's refund section (refund-lock.ts), so no refund of the payment is on its
 * way. Only intents of orders paid in the admin's channel: a permission is granted per channel.
 */
@Injectable()
export class CloseRefundIntentService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly intents: RefundIntents,
    private readonly lock: RefundLock,
    private readonly notes: OrderNotes,
    @Inject(GATEWAYKIT_PLUGIN_OPTIONS) private readonly options: GatewaykitPluginOptions,
  ) {}

  async close(ctx: RequestContext, input: CloseRefundIntentInput): Promise<CloseRefundIntentReport> {
    const { merTrackNo } = input;
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
        const tooYoung = this.tooYoungToCloseAsNotMade(lost);
        if (!input.made && tooYoung) return { closed: false, reason: tooYoung };
        if (input.made) {
          const payment = await this.connection
            .getRepository(ctx, Payment)
            .findOne({ where: { id: lost.paymentId } });
          if (!payment) return { closed: false, reason: `payment ${lost.paymentId} no longer exists` };
          await keepUncountedRefund(this.connection, ctx, payment, {
            kind: 'refund',
            status: 'succeeded',
            merTrackNo,
            amount: lost.refundAmount,
            currency: lost.currency,
            ...(payment.transactionId ? { tradeNo: payment.transactionId } : {}),
          });
        }
        await this.intents.close(ctx, lost);
        await this.note(ctx, lost, input);
        return {
          closed: true,
          reason: input.made
            ? `refund ${merTrackNo} closed as made: further refunds of this payment go through the merchant portal`
            : `refund ${merTrackNo} closed as not made: the payment refunds through Vendure again`,
        };
      },
    );
  }

  private tooYoungToCloseAsNotMade(intent: GatewaykitRefundIntent): string | undefined {
    const { notMadeCloseAfterMs } = reconcileSettings(this.options).settings;
    // On the clock createdAt is read on (the database's), as every age of the run is judged.
    const age = attemptClockNow() - intent.createdAt.getTime();
    if (age >= notMadeCloseAfterMs) return undefined;
    return `refund ${intent.merTrackNo} was sent ${Math.floor(age / 1000)} s ago and may still be under way at the gateway (its notice may still come): it can be closed as not made in ${Math.ceil((notMadeCloseAfterMs - age) / 1000)} s`;
  }

  /** A private order note naming the administrator, who is also its author in the history. */
  private async note(ctx: RequestContext, intent: GatewaykitRefundIntent, input: CloseRefundIntentInput) {
    const outcome = input.made
      ? 'made (the merchant portal shows it): kept on the payment as a refund Vendure does not count, so any more of this payment is refunded in the merchant portal'
      : 'not made (the merchant portal shows none): refunds of this payment go through Vendure again; should its notice still say it was made, it is kept as a refund Vendure does not count';
    const text = redactText(
      `Refund ${intent.merTrackNo} (${intent.refundAmount} ${intent.currency}, sent ${intent.createdAt.toISOString()} with no record here) ` +
        `closed as ${outcome}, by ${administratorName(ctx)}: ${input.note.trim()}`,
    );
    Logger.info(`Refund intent ${intent.merTrackNo}: ${text}`, loggerCtx);
    await this.notes.note(ctx, intent.orderId, text);
  }
}
