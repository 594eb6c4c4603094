import {
  type CallbackEvent,
  type ChargebackEvent,
  chargebackEventOf,
  findNoticedRefund,
  judgeRefundNotice,
  type RefundEvent,
  redactText,
  refundEventOf,
} from '@gatewaykit/core';
import { Injectable } from '@nestjs/common';
import {
  ConfigService,
  Logger,
  OrderService,
  Payment,
  Refund,
  type RequestContext,
  TransactionalConnection,
} from '@vendure/core';
import { loggerCtx } from '../constants';
import { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import type { GatewaykitRefundIntent } from '../entity/refund-intent.entity';
import { markReturnedAtGateway } from './attempt-claim';
import { chargebackNote, withChargeback } from './chargebacks';
import { OrderNotes } from './order-notes.service';
import { paymentOfTrade, paymentsOfMethod } from './payment-of-trade';
import { RefundFlights } from './refund-flights';
import { RefundIntents } from './refund-intents';
import { isGatewayRefund, knownRefundOf, refundMetadataOf } from './refund-notice';
import type { RefundMetadata } from './refund-request';
import { keepUncountedRefund } from './uncounted-refund';
import { vendureAmountToOrderAmount } from './vendure-money';

/** Runs `work` in the attempt store's exclusive section (one transaction holding the attempt's and order's row locks). */
export type Exclusive = <T>(work: (tx: RequestContext) => Promise<T>) => Promise<T>;

/**
 * Refund and chargeback notices of a verified callback (docs/callbacks-and-returns.md#refund-and-chargeback-events),
 * for an attempt of the method whose key verified it: a refund notice settles or fails the Vendure
 * refund it names, a chargeback is kept on the payment and noted on the order. Repeats change nothing.
 */
@Injectable()
export class GatewayNoticeService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly orderService: OrderService,
    private readonly configService: ConfigService,
    private readonly notes: OrderNotes,
    private readonly flights: RefundFlights,
    private readonly intents: RefundIntents,
  ) {}

  /** False when the event is neither a refund nor a chargeback (the caller notes it as it is). */
  async handle(row: GatewaykitPaymentAttempt, event: CallbackEvent, exclusive: Exclusive): Promise<boolean> {
    const refund = refundEventOf(event);
    if (refund) {
      await this.refund(row, refund, exclusive, `notice ${event.type}`);
      return true;
    }
    const chargeback = chargebackEventOf(event);
    if (chargeback) {
      await this.chargeback(row, chargeback, exclusive);
      return true;
    }
    return false;
  }

  /**
   * Applies a refund result (from its notice, or read back by the reconciliation) to the Vendure refund
   * it names. Returns what happened, for the reconciliation's report.
   */
  async refund(
    row: GatewaykitPaymentAttempt,
    event: RefundEvent,
    exclusive: Exclusive,
    source = `notice ${event.status === 'succeeded' ? 'refund.success' : 'refund.fail'}`,
  ): Promise<'settled' | 'failed' | 'duplicate' | 'alert' | 'unmatched'> {
    // A notice can overtake the commit of the refund it answers (RefundFlights).
    await this.flights.settled(event.merTrackNo);
    return exclusive(async (tx) => {
      const payments = await this.paymentsOf(tx, row);
      const refunds = payments.flatMap((payment) => payment.refunds.map((refund) => ({ refund, payment })));
      const found = findNoticedRefund(
        refunds.map((entry) => entry.refund).filter(isGatewayRefund),
        event,
        (refund) => knownRefundOf(refund),
      );
      const what = `${event.amount ?? '?'} ${event.currency ?? ''}`.trim();
      if (!found) {
        // Only the intent of the payment of the notice's trade: that payment keeps what it answers.
        const tradePayment = paymentOfTrade(payments, event.tradeNo ?? row.tradeNo);
        const lost = tradePayment ? await this.intents.answer(tx, tradePayment.id, event) : undefined;
        if (lost) return this.lostRecordAnswered(tx, row, tradePayment, lost, event, source);
        const byHand =
          event.status === 'succeeded'
            ? await this.bindRecordedByHand(tx, row, tradePayment, event)
            : undefined;
        if (byHand) {
          const text =
            `Gateway ${source} for trade ${event.tradeNo ?? '?'}: ${what} (batchNo ${event.batchNo ?? '?'}): ` +
            `the refund ${String(byHand.id)} recorded here by hand (the method's refunds are manual).`;
          Logger.info(`Order ${row.orderCode}: ${text}`, loggerCtx);
          await this.notes.noteOnce(tx, row.orderId, text);
          return 'unmatched';
        }
        if (event.status === 'succeeded') await this.keepPortalRefund(tx, tradePayment, event);
        const settled = tradePayment?.state === 'Settled';
        if (event.status === 'succeeded' && !settled) {
          // No Settled Payment holds this trade (not recorded yet, declined first, or the order could not
          // take it): its success must never settle the order now.
          await markReturnedAtGateway(
            this.connection.getRepository(tx, GatewaykitPaymentAttempt),
            row.id,
            `refund ${event.batchNo ?? event.merTrackNo ?? '?'} of ${what}`,
          );
        }
        const text =
          `Gateway ${source} for trade ${event.tradeNo ?? '?'}: ${what}` +
          (event.reason ? ` (${event.reason})` : '') +
          `. It matches no gateway refund of this order in Vendure (batchNo ${event.batchNo ?? '?'}, merTrackNo ${event.merTrackNo ?? '?'}): ` +
          'if it was made in the merchant portal, do not record it here with a refund: that would send the money ' +
          (settled || event.status !== 'succeeded'
            ? 'again (further refunds of this payment are refused here; make them in the portal); otherwise check the portal.'
            : 'again. No settled payment of this order holds the trade: its success will not settle the order.');
        Logger.warn(`Order ${row.orderCode}: ${redactText(text)}`, loggerCtx);
        await this.notes.noteOnce(tx, row.orderId, text);
        return 'unmatched';
      }
      const payment = refunds.find((entry) => entry.refund === found)?.payment;
      const meta = refundMetadataOf(found);
      const verdict = judgeRefundNotice(
        knownRefundOf(found, {
          amount: this.gatewayAmount(found.total, row.currency),
          currency: row.currency,
          tradeNo: payment?.transactionId,
        }),
        event,
      );
      switch (verdict.kind) {
        case 'repeat':
          Logger.info(
            `Order ${row.orderCode}: ${source} for refund ${found.id} again, nothing changed`,
            loggerCtx,
          );
          return 'duplicate';
        case 'contradicts':
        case 'conflict': {
          const why = verdict.kind === 'conflict' ? `the refund is already ${found.state}` : verdict.message;
          const text = `Gateway ${source} (batchNo ${event.batchNo ?? '?'}) for refund ${found.id} ignored: ${why}. Check the merchant portal.`;
          Logger.error(`Order ${row.orderCode}: ${text}`, loggerCtx);
          await this.notes.noteOnce(tx, row.orderId, text);
          return 'alert';
        }
        case 'settle': {
          const settled = verdict.status === 'succeeded';
          const metadata: RefundMetadata = {
            ...meta,
            gatewaykit: 'gateway',
            ...(event.batchNo ? { batchNo: event.batchNo } : {}),
            status: settled ? 'succeeded' : 'failed',
            ...(event.noticeDate ? { noticeDate: event.noticeDate } : {}),
            ...(settled ? {} : { message: event.reason ?? 'the gateway gave no reason' }),
          };
          await this.connection
            .getRepository(tx, Refund)
            .update({ id: found.id }, { metadata: { ...metadata } as Refund['metadata'] });
          const moved = await this.orderService.transitionRefundToState(
            tx,
            found.id,
            settled ? 'Settled' : 'Failed',
            event.batchNo ?? found.transactionId ?? undefined,
          );
          // A throw answers 500: the gateway delivers the notice again.
          if (!(moved instanceof Refund))
            throw new Error(`refund ${found.id} could not be moved: ${moved.message}`);
          Logger.info(
            `Order ${row.orderCode}: refund ${found.id} ${settled ? 'settled' : 'failed'} (${source})`,
            loggerCtx,
          );
          if (!settled) {
            await this.notes.note(
              tx,
              row.orderId,
              `Refund ${found.id} (${what}, batchNo ${event.batchNo ?? '?'}) failed at the gateway: ` +
                `${event.reason ?? 'no reason given'}. Nothing was refunded; the amount can be refunded again.`,
            );
          }
          return settled ? 'settled' : 'failed';
        }
      }
    });
  }

  /**
   * Whether the chargeback is already kept on the trade's payment, from a plain read in `ctx`: the
   * reconciliation lists the same chargebacks on every run and asks this before taking any lock. Only
   * outside a callback's phase (which holds its one connection, one-connection.ts); a kept chargeback
   * only ever stays kept, except on sql.js, where a plain read may see an uncommitted one: the next run
   * then keeps it.
   */
  async chargebackKept(
    ctx: RequestContext,
    row: GatewaykitPaymentAttempt,
    event: ChargebackEvent,
  ): Promise<boolean> {
    const payment = paymentOfTrade(
      await paymentsOfMethod(this.connection, ctx, row.orderId, row.paymentMethodCode),
      event.tradeNo ?? row.tradeNo,
    );
    return payment !== undefined && !withChargeback(payment.metadata, event).added;
  }

  /**
   * Keeps a chargeback (from its notice, or listed by the reconciliation) on the trade's payment and
   * notes it on the order, in one transaction; `known` when it was kept before.
   */
  async chargeback(
    row: GatewaykitPaymentAttempt,
    event: ChargebackEvent,
    exclusive: Exclusive,
  ): Promise<'added' | 'known'> {
    return exclusive(async (tx) => {
      const payment = paymentOfTrade(await this.paymentsOf(tx, row), event.tradeNo ?? row.tradeNo);
      // A success with no payment of its trade is one the order could not take (PAID BUT NOT APPLIED).
      const text = chargebackNote(event, { unapplied: !payment && row.status === 'succeeded' });
      if (payment) {
        const { metadata, added } = withChargeback(payment.metadata, event);
        if (!added) {
          Logger.info(
            `Order ${row.orderCode}: chargeback ${event.batchNo ?? '?'} again, nothing changed`,
            loggerCtx,
          );
          return 'known';
        }
        await this.connection
          .getRepository(tx, Payment)
          .update({ id: payment.id }, { metadata: metadata as Payment['metadata'] });
        await this.notes.note(tx, row.orderId, text);
      }
      if (payment?.state !== 'Settled') {
        // No Settled Payment holds this trade (not recorded yet, declined first, or the order could not
        // take it): its success must never settle the order now (as for a portal refund).
        await markReturnedAtGateway(
          this.connection.getRepository(tx, GatewaykitPaymentAttempt),
          row.id,
          `chargeback ${event.batchNo ?? '?'} of ${`${event.amount ?? '?'} ${event.currency ?? ''}`.trim()}`,
        );
      }
      // No payment to keep it on: the order's note is what says it was seen.
      if (!payment && !(await this.notes.noteOnce(tx, row.orderId, text))) return 'known';
      Logger.warn(`Order ${row.orderCode}: ${redactText(text)}`, loggerCtx);
      return 'added';
    });
  }

  /**
   * The notice of a refund sent whose record was lost (refund-intents.ts): made, it is kept on the payment
   * as a refund Vendure does not count, as a portal refund is; failed, nothing was refunded and the
   * payment's refunds go through Vendure again.
   */
  private async lostRecordAnswered(
    tx: RequestContext,
    row: GatewaykitPaymentAttempt,
    tradePayment: Payment | undefined,
    intent: GatewaykitRefundIntent,
    event: RefundEvent,
    source: string,
  ): Promise<'unmatched'> {
    // The first answer stands (a later notice repeating or contradicting it changes nothing); one an
    // administrator closed still keeps a refund its notice says was made.
    const made = intent.answer === 'closed' ? event.status === 'succeeded' : intent.answer === 'succeeded';
    if (made) await this.keepPortalRefund(tx, tradePayment, { ...event, status: 'succeeded' });
    // The same words whichever path brings it (notice or read-back), so it is noted once.
    const text =
      `Gateway refund ${intent.merTrackNo} of ${intent.refundAmount} ${intent.currency} (batchNo ${event.batchNo ?? '?'}), ` +
      'sent from here but never recorded (the request that sent it did not finish): ' +
      (made
        ? 'it was made. It is kept on the payment, and any further refund of this payment is made in the merchant portal. Do not record it here with a refund: that would send the money again.'
        : 'it failed. Nothing was refunded, and the payment can be refunded here again.');
    Logger.warn(`Order ${row.orderCode}: ${source}: ${redactText(text)}`, loggerCtx);
    await this.notes.noteOnce(tx, row.orderId, text);
    return 'unmatched';
  }

  /**
   * Keeps a refund made outside Vendure (the merchant portal) on the payment it refunded (`payment`: the
   * payment of the notice's trade), by batchNo: Vendure does not count it, so what is left to refund
   * cannot be told (core's refundBlockedBy).
   */
  private async keepPortalRefund(
    tx: RequestContext,
    payment: Payment | undefined,
    event: RefundEvent,
  ): Promise<void> {
    if (payment) await keepUncountedRefund(this.connection, tx, payment, event);
  }

  /**
   * The refund an administrator recorded in Vendure under the method's manual refunds setting that this
   * portal refund is (same amount in the charged currency, not Failed), bound to it one to one by the
   * notice's batchNo in its metadata (`portalBatchNo`): Vendure counts that refund, so the notice is not
   * kept as one Vendure does not count (which would refuse the payment's later gateway refunds). A
   * repeated notice finds the refund it bound.
   */
  private async bindRecordedByHand(
    tx: RequestContext,
    row: GatewaykitPaymentAttempt,
    payment: Payment | undefined,
    event: RefundEvent,
  ): Promise<Refund | undefined> {
    const key = event.batchNo ?? event.merTrackNo;
    if (!payment || !key || event.amount === undefined) return undefined;
    if (event.currency && event.currency.toUpperCase() !== row.currency.toUpperCase()) return undefined;
    const byHand = (payment.refunds ?? []).filter(
      (refund) => refundMetadataOf(refund).gatewaykit === 'manual',
    );
    const boundTo = (refund: Refund) =>
      (refund.metadata as { portalBatchNo?: unknown } | null)?.portalBatchNo;
    const bound = byHand.find((refund) => boundTo(refund) === key);
    if (bound) return bound;
    const sameAmount = (refund: Refund) => {
      try {
        return Number(this.gatewayAmount(refund.total, row.currency)) === Number(event.amount);
      } catch {
        return false;
      }
    };
    const match = byHand.find(
      (refund) => refund.state !== 'Failed' && boundTo(refund) === undefined && sameAmount(refund),
    );
    if (!match) return undefined;
    await this.connection
      .getRepository(tx, Refund)
      .update(
        { id: match.id },
        { metadata: { ...(match.metadata ?? {}), portalBatchNo: key } as Refund['metadata'] },
      );
    return match;
  }

  /** The order's payments made through the method whose key verified the notice, with their refunds. */
  private paymentsOf(tx: RequestContext, row: GatewaykitPaymentAttempt): Promise<Payment[]> {
    return paymentsOfMethod(this.connection, tx, row.orderId, row.paymentMethodCode, ['refunds']);
  }

  private gatewayAmount(total: number, currency: string): string {
    return vendureAmountToOrderAmount(
      total,
      currency,
      this.configService.entityOptions.moneyStrategy?.precision ?? 2,
    );
  }
}
