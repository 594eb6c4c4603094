import {
  type InboundDecision,
  type PaymentOutcome,
  recordOutcome,
  redactedErrorText,
} from '@gatewaykit/core';
import { Injectable } from '@nestjs/common';
import {
  ConfigService,
  Logger,
  Order,
  OrderService,
  RequestContext,
  TransactionalConnection,
} from '@vendure/core';
import { QueryFailedError } from 'typeorm';
import { discardTicket, issueTicket } from '../config/payment-tickets';
import { loggerCtx } from '../constants';
import type { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import { contextInCurrency } from './currency-context';
import { GatewayNoticeService } from './gateway-notice.service';
import { type OrderAttempt, OrderAttempts } from './order-attempts';
import { OrderNotes } from './order-notes.service';
import { overpaidBy } from './overpayment';
import { paymentStateFor } from './payment-state';
import { vendureAmountToOrderAmount } from './vendure-money';

const PAYABLE_STATES = ['ArrangingPayment', 'ArrangingAdditionalPayment'];

/**
 * Vendure's side of recording a verified gateway outcome (synchronous charge answer, signed callback,
 * signed return): core decides (recordOutcome), this service stores the attempt row and turns a final
 * outcome into a Payment on the order, with at most one Settled payment per gateway trade.
 * `ctx` must belong to the order's own channel (Vendure 3.7.3 checks the payment's channel).
 */
@Injectable()
export class PaymentRecorderService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly orderService: OrderService,
    private readonly notices: GatewayNoticeService,
    private readonly configService: ConfigService,
    private readonly notes: OrderNotes,
  ) {}

  /**
   * The attempts an outcome verified with `methodCode`'s credentials may change: an attempt made
   * through another method (other keys, perhaps known to someone else) is unknown to it.
   */
  attemptsOf(ctx: RequestContext, methodCode: string): OrderAttempts {
    return new OrderAttempts(ctx, methodCode, this.connection, {
      applyToOrder: (tx, row, next) => this.applyToOrder(tx, row, next),
      // What an attempt's store says is said again by repeated callbacks and runs: once per order.
      note: async (noteCtx, row, text) => {
        await this.notes.noteOnce(noteCtx, row.orderId, text);
      },
      notice: (row, event, exclusive) => this.notices.handle(row, event, exclusive),
    });
  }

  /** Records the synchronous answer of a charge the way a callback would be (whichever comes first wins). */
  record(
    ctx: RequestContext,
    methodCode: string,
    orderNo: string,
    outcome: PaymentOutcome,
  ): Promise<InboundDecision<OrderAttempt>> {
    return recordOutcome(this.attemptsOf(ctx, methodCode), { ...outcome, orderNo });
  }

  /** Why a success could not be added to the order (OrderEffects.applyToOrder); undefined otherwise. */
  private async applyToOrder(
    ctx: RequestContext,
    attempt: GatewaykitPaymentAttempt,
    outcome: PaymentOutcome,
  ): Promise<string | undefined> {
    const state = paymentStateFor(outcome);
    if (!state) return undefined;
    try {
      return await this.addPayment(ctx, attempt, outcome, state);
    } catch (error) {
      // A database failure rolls the recording back and its next delivery tries again. Vendure throwing
      // for the order or the method (disabled, removed from the channel) would throw at every delivery
      // and keep the attempt open for ever: a success is kept as charged but not applied, a decline is
      // recorded without its Declined payment. Nothing Vendure wrote for a payment that threw is left on
      // the order: it adds payments and moves orders in nested transactions rolled back to a savepoint
      // (3.7), even when a hook throws after the payment was saved (paid-not-applied.test.ts in the
      // Vendure store checks it with a throwing order process).
      if (error instanceof QueryFailedError) throw error;
      const reason = redactedErrorText(error);
      if (state === 'Declined') {
        Logger.warn(
          `Order ${attempt.orderCode}: decline of ${attempt.orderNo} not added to the order: ${reason}`,
          loggerCtx,
        );
        return undefined;
      }
      return this.chargedButUnapplied(ctx, attempt, outcome.tradeNo ?? attempt.tradeNo ?? undefined, reason);
    }
  }

  /** Adds the Payment; for a success Vendure refused, why (see chargedButUnapplied). */
  private async addPayment(
    requestCtx: RequestContext,
    attempt: GatewaykitPaymentAttempt,
    outcome: PaymentOutcome,
    state: 'Settled' | 'Declined',
  ): Promise<string | undefined> {
    // Never the channel's default currency: recalculating the order (a stripped coupon) would move it.
    const ctx = contextInCurrency(requestCtx, attempt.currency);
    let order = await this.orderService.findOne(ctx, attempt.orderId, ['payments']);
    if (!order) throw new Error(`Order ${attempt.orderCode} not found in its channel`);
    const tradeNo = outcome.tradeNo ?? attempt.tradeNo ?? undefined;

    if (state === 'Settled') {
      if (tradeNo && order.payments.some((p) => p.transactionId === tradeNo && p.state === 'Settled')) {
        return undefined;
      }
      // Given back at the gateway before this success was recorded (gateway-notice.service.ts): money
      // returned never pays the order.
      if (attempt.returnedAtGateway) {
        return this.chargedButUnapplied(
          ctx,
          attempt,
          tradeNo,
          `money of it was given back at the gateway before this success was recorded (${attempt.returnedAtGateway}): refund only what that did not return, if anything`,
        );
      }
      // Vendure moves an order to the currency of the request that changes it and keeps amounts as bare
      // integers: money taken in the attempt's currency must never be counted in another one.
      if (order.currencyCode !== attempt.currency) {
        return this.chargedButUnapplied(
          ctx,
          attempt,
          tradeNo,
          `the order's currency is now ${order.currencyCode}, the payment was made in ${attempt.currency}`,
        );
      }
      if (order.state === 'AddingItems') {
        // The shopper went back to the cart while paying: the money is taken, so the order moves on.
        const moved = await this.orderService.transitionToState(ctx, order.id, 'ArrangingPayment');
        if (!(moved instanceof Order)) return this.chargedButUnapplied(ctx, attempt, tradeNo, moved.message);
        order = moved;
      }
      if (!PAYABLE_STATES.includes(order.state)) {
        return this.chargedButUnapplied(ctx, attempt, tradeNo, `order is already in state ${order.state}`);
      }
    } else if (!PAYABLE_STATES.includes(order.state) || order.currencyCode !== attempt.currency) {
      // A decline for an order that is no longer waiting for this payment changes nothing.
      return undefined;
    }

    // Measured before the payment counts toward the order: a page opened for an older, larger total.
    const overpaid =
      state === 'Settled' ? overpaidBy(await this.withPayments(ctx, order), attempt.amount) : 0;
    const ticket = issueTicket({
      state,
      amount: attempt.amount,
      ...(tradeNo ? { tradeNo } : {}),
      ...(outcome.status === 'failed' ? { errorMessage: outcome.reason } : {}),
      metadata: {
        orderNo: attempt.orderNo,
        tradeNo: tradeNo ?? null,
        mode: attempt.mode,
        orderAmount: attempt.orderAmount,
        currency: attempt.currency,
        status: outcome.status,
        maskCardNo: attempt.maskCardNo ?? null,
        orderInfo: outcome.orderInfo ?? null,
      },
      publicMetadata: {
        orderNo: attempt.orderNo,
        status: outcome.status,
        maskCardNo: attempt.maskCardNo ?? null,
        mode: attempt.mode,
        ...(outcome.status === 'failed' ? { message: outcome.reason } : {}),
      },
    });
    try {
      const result = await this.orderService.addPaymentToOrder(ctx, order.id, {
        method: attempt.paymentMethodCode,
        metadata: ticket,
      });
      if (state === 'Settled' && !(result instanceof Order)) {
        return this.chargedButUnapplied(ctx, attempt, tradeNo, result.message);
      }
      if (overpaid > 0) await this.overpaid(ctx, attempt, tradeNo, overpaid);
      return undefined;
    } finally {
      discardTicket(ticket);
    }
  }

  /**
   * The customer paid but Vendure cannot take the payment: make it loud. The attempt keeps the order
   * (unapplied-charge.ts) until the merchant releases it; returns the reason it keeps.
   */
  private async chargedButUnapplied(
    ctx: RequestContext,
    attempt: GatewaykitPaymentAttempt,
    tradeNo: string | undefined,
    reason: string,
  ): Promise<string> {
    const text =
      `Gateway trade ${tradeNo ?? '?'} (orderNo ${attempt.orderNo}, ${attempt.orderAmount} ${attempt.currency}) ` +
      `was charged but could not be added to the order: ${reason}. Refund it in the gateway's merchant portal ` +
      `or add the payment by hand, then release the order with gatewaykitCloseAttempt(orderNo: "${attempt.orderNo}").`;
    Logger.error(`PAID BUT NOT APPLIED: order ${attempt.orderCode}: ${text}`, loggerCtx);
    await this.notes.note(ctx, attempt.orderId, text);
    return reason;
  }

  /** The order as it is paid so far (Vendure's state transition may answer it without its payments). */
  private async withPayments(ctx: RequestContext, order: Order): Promise<Order> {
    if (Array.isArray(order.payments)) return order;
    const read = await this.orderService.findOne(ctx, order.id, ['payments']);
    if (!read) throw new Error(`Order ${order.code} not found in its channel`);
    return read;
  }

  /** The payment is kept and the order paid; the difference is the merchant's to refund (overpayment.ts). */
  private async overpaid(
    ctx: RequestContext,
    attempt: GatewaykitPaymentAttempt,
    tradeNo: string | undefined,
    overpaid: number,
  ): Promise<void> {
    const precision = this.configService.entityOptions.moneyStrategy?.precision ?? 2;
    let difference: string;
    try {
      difference = vendureAmountToOrderAmount(overpaid, attempt.currency, precision);
    } catch {
      // A difference the currency cannot express (fractional yen): in Vendure's precision. A throw here
      // would have the added payment reported as not applied.
      difference = (overpaid / 10 ** precision).toFixed(precision);
    }
    const text =
      `Gateway trade ${tradeNo ?? '?'} (orderNo ${attempt.orderNo}) paid ${attempt.orderAmount} ${attempt.currency}, ` +
      `more than the order still owed: overpaid by ${difference} ${attempt.currency}: refund the difference ` +
      `in the gateway's merchant portal.`;
    Logger.error(`Order ${attempt.orderCode}: ${text}`, loggerCtx);
    await this.notes.note(ctx, attempt.orderId, text);
  }
}
