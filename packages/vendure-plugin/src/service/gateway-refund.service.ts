import {
  type RefundAsked,
  redactedErrorText,
  redactText,
  refundBlockedBy,
  sendRefund,
} from '@gatewaykit/core';
import { Injectable } from '@nestjs/common';
import {
  ConfigService,
  type CreateRefundResult,
  Logger,
  type Order,
  OrderService,
  Payment,
  type Refund,
  type RequestContext,
  TransactionalConnection,
} from '@vendure/core';
import { parseMethodArgs } from '../config/method-args';
import { loggerCtx } from '../constants';
import { MethodConfigService } from './method-config.service';
import { paidAttemptOf } from './paid-attempt';
import { paymentOfTrade, paymentsOfMethod } from './payment-of-trade';
import { RefundFlights } from './refund-flights';
import { RefundIntents } from './refund-intents';
import { RefundLock } from './refund-lock';
import { portalRefundsOf } from './refund-notice';
import {
  buildRefundRequest,
  type RefundMetadata,
  RefundRequestError,
  refundHoldingBatchNo,
} from './refund-request';
import { vendureAmountToOrderAmount } from './vendure-money';

type RawArgs = Record<string, string | undefined | null>;

/**
 * The handler's createRefund: a Vendure refund becomes one gateway refund
 * (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks), only of a charge the plugin
 * recorded for this order, channel and method (paid-attempt.ts), numbered inside the payment's refund
 * section (refund-lock.ts), and sent through core's sendRefund. Its state
 * is the answer's: `Settled` or `Failed` when the answer says so, else `Pending` until the gateway's
 * refund notice (or the reconciliation) settles or fails it; a refusal is `Failed` at once with the
 * gateway's message; a lost answer stays `Pending` and is never sent again
 * (docs/safety-rules.md#unknown-outcome).
 */
@Injectable()
export class GatewayRefundService {
  constructor(
    private readonly methods: MethodConfigService,
    private readonly configService: ConfigService,
    private readonly orderService: OrderService,
    private readonly flights: RefundFlights,
    private readonly lock: RefundLock,
    private readonly connection: TransactionalConnection,
    private readonly intents: RefundIntents,
  ) {}

  async create(
    ctx: RequestContext,
    reason: string | null | undefined,
    amount: number,
    order: Order,
    payment: Payment,
    args: RawArgs,
  ): Promise<CreateRefundResult> {
    let config: ReturnType<typeof parseMethodArgs>;
    try {
      config = parseMethodArgs(args);
    } catch (error) {
      return this.refused(ctx, order, { gatewaykit: 'gateway' }, redactedErrorText(error));
    }
    if (config.refunds === 'manual') {
      // RefundNoteService tells the admin to refund in the merchant portal.
      return { state: 'Pending', metadata: { gatewaykit: 'manual' } satisfies RefundMetadata };
    }

    // Numbered, checked and sent one at a time per payment (refund-lock.ts).
    return this.lock.forPayment(ctx, { paymentId: payment.id, orderId: order.id }, (refunds) =>
      this.send(ctx, reason, amount, order, payment, config, refunds),
    );
  }

  private async send(
    ctx: RequestContext,
    reason: string | null | undefined,
    amount: number,
    order: Order,
    payment: Payment,
    config: ReturnType<typeof parseMethodArgs>,
    refunds: readonly Refund[],
  ): Promise<CreateRefundResult> {
    const paid = await paidAttemptOf(this.connection, ctx, order.id, payment);
    if (!paid?.tradeNo) {
      const tradeNo = payment.transactionId?.trim();
      return this.refused(
        ctx,
        order,
        { gatewaykit: 'gateway' },
        tradeNo
          ? `trade ${tradeNo} is not a payment of this order taken through ${payment.method}: nothing was sent`
          : 'the payment has no gateway trade number (transactionId): nothing was sent',
      );
    }

    // One payment per trade refunds it: the one its refunds and chargebacks are kept on. Another row
    // naming the trade (a manual payment an administrator added) would refund the same money again,
    // counted apart from the refunds already made.
    const tradePayment = paymentOfTrade(
      await paymentsOfMethod(this.connection, ctx, order.id, payment.method),
      paid.tradeNo,
    );
    if (String(tradePayment?.id) !== String(payment.id) || tradePayment?.state !== 'Settled') {
      return this.refused(
        ctx,
        order,
        { gatewaykit: 'gateway' },
        `trade ${paid.tradeNo} is refunded through payment ${String(tradePayment?.id ?? '?')} of this order (${tradePayment?.state ?? 'none'}), not payment ${String(payment.id)}: nothing was sent`,
      );
    }

    // A refund sent whose record was lost may have been made: nothing more is sent until its notice.
    const lost = await this.intents.unheld(ctx, payment.id, refunds);
    const unanswered = lost.find((intent) => intent.answer === null);
    if (unanswered) {
      return this.refused(
        ctx,
        order,
        { gatewaykit: 'gateway' },
        `refund ${unanswered.merTrackNo} (${unanswered.refundAmount} ${unanswered.currency}) was sent to the gateway at ` +
          `${unanswered.createdAt.toISOString()}, but its record here was lost (the request that sent it did not finish), ` +
          'so it may have been made. No refund of this payment is sent until its notice says how it ended ' +
          '(if it was made, it is kept on the payment and any more is refunded in the merchant portal); nothing was sent',
      );
    }

    const precision = this.configService.entityOptions.moneyStrategy?.precision ?? 2;
    let request: ReturnType<typeof buildRefundRequest>;
    try {
      request = buildRefundRequest({
        orderCode: order.code,
        // What was charged, in the currency it was charged in: the order may have moved to another
        // currency since (a channel with several), and its amounts with it.
        currency: paid.currency,
        precision,
        payment: { id: payment.id, amount: paid.amount, transactionId: paid.tradeNo, refunds },
        amount,
        reason,
        lostRecords: lost.length,
      });
    } catch (error) {
      if (!(error instanceof RefundRequestError)) throw error;
      return this.refused(ctx, order, { gatewaykit: 'gateway' }, error.message);
    }
    const inTradeCurrency = (minor: number) => vendureAmountToOrderAmount(minor, paid.currency, precision);
    const blocked = await this.blockedByNotices(tradePayment, () => ({
      amount: request.refundAmount,
      paid: inTradeCurrency(paid.amount),
      refunded: refunds
        .filter((refund) => refund.state !== 'Failed' && refund.total > 0)
        .map((refund) => inTradeCurrency(refund.total)),
      currency: paid.currency,
    }));
    if (blocked) return this.refused(ctx, order, { gatewaykit: 'gateway' }, `${blocked}; nothing was sent`);
    const sent: RefundMetadata = {
      gatewaykit: 'gateway',
      merTrackNo: request.merTrackNo,
      tradeNo: request.tradeNo,
      refundAmount: request.refundAmount,
      currency: paid.currency,
      refundType: request.refundType,
    };

    try {
      await this.intents.record(ctx, {
        merTrackNo: request.merTrackNo,
        paymentId: payment.id,
        orderId: order.id,
        refundAmount: request.refundAmount,
        currency: paid.currency,
      });
    } catch (error) {
      // The Refund keeps the id: an intent written late is held by it, and the next refund takes another.
      return this.refused(
        ctx,
        order,
        { gatewaykit: 'gateway', merTrackNo: request.merTrackNo },
        `the refund could not be recorded before sending (${redactedErrorText(error)}); nothing was sent`,
      );
    }
    this.flights.begin(request.merTrackNo, ctx);
    const result = await sendRefund(this.methods.clientFor(config), request);
    if (result.kind === 'refused') {
      // The gateway answered with a refusal, or the request provably never left: nothing was refunded.
      this.flights.end(request.merTrackNo);
      await this.notMade(ctx, request.merTrackNo, 'refused');
      return this.refused(ctx, order, sent, result.error.message);
    }
    if (result.kind === 'unknown') {
      // The request may have been carried out: the notice (which names merTrackNo) or the
      // reconciliation decides; sending it again could refund twice.
      const message = `The gateway's answer was lost (${redactedErrorText(result.error)}): the refund may have been made. Its notification settles it; check the merchant portal for ${request.merTrackNo} if none arrives.`;
      Logger.warn(`Order ${order.code}: refund ${request.merTrackNo}: ${message}`, loggerCtx);
      await this.note(ctx, order, `Refund ${request.merTrackNo} is pending: ${message}`);
      return { state: 'Pending', metadata: { ...sent, status: 'unknown', message } satisfies RefundMetadata };
    }
    const { batchNo, status } = result;
    const holder = refundHoldingBatchNo(refunds, batchNo);
    if (holder) {
      // The gateway answered with a refund Vendure already has: nothing new was refunded, so its intent
      // blocks nothing even if the admin transaction rolls back.
      this.flights.end(request.merTrackNo);
      await this.notMade(ctx, request.merTrackNo, 'refused');
      return this.refused(
        ctx,
        order,
        sent,
        `duplicate of refund ${holder.id}: the gateway answered ${request.merTrackNo} with its refund ${batchNo}, nothing more was refunded`,
      );
    }
    if (status === 'failed') {
      await this.notMade(ctx, request.merTrackNo, 'failed');
      // Its notice follows: the flight ends when this refund is committed, so the notice finds it.
      return this.refused(
        ctx,
        order,
        { ...sent, batchNo },
        `the gateway answered refund ${request.merTrackNo} as failed (batchNo ${batchNo})`,
      );
    }
    Logger.info(
      `Order ${order.code}: refund ${request.merTrackNo} (${request.refundAmount} ${paid.currency}) sent, batchNo ${batchNo}, ${status}`,
      loggerCtx,
    );
    // Should this request's transaction roll back, the reconciliation can read the refund back by it.
    await this.intents.numbered(ctx, request.merTrackNo, batchNo).catch((error: unknown) => {
      Logger.warn(
        `refund ${request.merTrackNo}: its batchNo could not be kept with its intent: ${redactedErrorText(error)}`,
        loggerCtx,
      );
    });
    // A refund the answer already calls made is settled now; its notice then repeats it.
    return status === 'succeeded'
      ? {
          state: 'Settled',
          transactionId: batchNo,
          metadata: { ...sent, batchNo, status: 'succeeded' } satisfies RefundMetadata,
        }
      : {
          state: 'Pending',
          transactionId: batchNo,
          metadata: { ...sent, batchNo, status: 'sent' } satisfies RefundMetadata,
        };
  }

  /**
   * What the payment's notices recorded that blocks a refund (core's refundBlockedBy), from the payment
   * as read inside the refund section (`send`'s read of the trade's payment), not as Vendure read it
   * before: a notice may have stored a chargeback since.
   */
  private async blockedByNotices(payment: Payment, asked: () => RefundAsked): Promise<string | undefined> {
    const metadata = (payment.metadata ?? {}) as Record<string, unknown>;
    const history = {
      chargebacks: Array.isArray(metadata.chargebacks) ? metadata.chargebacks : [],
      uncountedRefunds: portalRefundsOf(metadata),
    };
    try {
      // The amounts are asked for only to count a chargeback (a refund of an odd amount in the past
      // must not fail the rest).
      return await refundBlockedBy(history, asked);
    } catch (error) {
      return `the payment was charged back, and its refunds cannot be counted in its currency (${redactedErrorText(error)})`;
    }
  }

  /**
   * The gateway's answer says the refund was not made: its intent must not block the payment's refunds
   * should this request's transaction roll back. Best effort: if it commits, its Refund holds the intent.
   */
  private async notMade(
    ctx: RequestContext,
    merTrackNo: string,
    answer: 'refused' | 'failed',
  ): Promise<void> {
    await this.intents.answered(ctx, merTrackNo, answer).catch((error: unknown) => {
      Logger.warn(
        `refund ${merTrackNo}: its intent could not be marked ${answer}: ${redactedErrorText(error)}`,
        loggerCtx,
      );
    });
  }

  private async refused(
    ctx: RequestContext,
    order: Order,
    metadata: RefundMetadata,
    message: string,
  ): Promise<CreateRefundResult> {
    const text = redactText(message).slice(0, 500);
    Logger.warn(`Order ${order.code}: refund refused: ${text}`, loggerCtx);
    await this.note(ctx, order, `Refund failed, nothing was refunded: ${text}`);
    return { state: 'Failed', metadata: { ...metadata, status: 'refused', message: text } };
  }

  private async note(ctx: RequestContext, order: Order, note: string): Promise<void> {
    await this.orderService.addNoteToOrder(ctx, { id: order.id, note, isPublic: false });
  }
}
