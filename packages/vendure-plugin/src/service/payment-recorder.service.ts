import { assertAmountMatches, mergeOutcome, type PaymentOutcome } from '@gatewaykit/core';
import { Injectable } from '@nestjs/common';
import { Logger, Order, OrderService, RequestContext, TransactionalConnection } from '@vendure/core';
import type { Repository } from 'typeorm';
import { discardTicket, issueTicket } from '../config/payment-tickets';
import { loggerCtx } from '../constants';
import { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import { outcomeOfAttempt } from './attempt-outcome';
import { KeyedLock } from './keyed-lock';
import { paymentStateFor } from './payment-state';

export type RecordResult =
  /** The outcome moved the attempt forward (a payment may have been added). */
  | { kind: 'recorded'; attempt: GatewaykitPaymentAttempt; outcome: PaymentOutcome }
  /** Already known (duplicate, older or equal status): nothing changed. */
  | { kind: 'duplicate'; attempt: GatewaykitPaymentAttempt }
  /** No attempt with that orderNo in this channel made through this payment method. */
  | { kind: 'unknown-order' }
  /** Amount or currency differ from what this attempt asked for: nothing changed. */
  | { kind: 'mismatch'; attempt: GatewaykitPaymentAttempt; message: string };

const PAYABLE_STATES = ['ArrangingPayment', 'ArrangingAdditionalPayment'];

/**
 * The single code path that turns a verified gateway outcome (synchronous charge answer, signed
 * callback, signed return) into Vendure state: inside one transaction, serialised per order, deduped by
 * the attempt row's versioned status, with at most one Settled payment per gateway trade.
 * `ctx` must belong to the order's own channel (Vendure 3.7.3 checks the payment's channel).
 */
@Injectable()
export class PaymentRecorderService {
  private readonly lock = new KeyedLock();

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly orderService: OrderService,
  ) {}

  /**
   * `methodCode` is the payment method whose credentials verified the outcome: an attempt made through
   * another method (other keys, perhaps known to someone else) is treated as unknown.
   */
  async record(
    ctx: RequestContext,
    methodCode: string,
    orderNo: string,
    outcome: PaymentOutcome,
  ): Promise<RecordResult> {
    // sql.js/SQLite share one connection: serialise all recordings there, per order elsewhere.
    const dbType = this.connection.rawConnection.options.type;
    const key = dbType === 'sqljs' || dbType === 'better-sqlite3' || dbType === 'sqlite' ? '*' : orderNo;
    return this.lock.run(key, () =>
      this.connection.withTransaction(ctx, (txCtx) =>
        this.recordInTransaction(txCtx, methodCode, orderNo, outcome),
      ),
    );
  }

  private async recordInTransaction(
    ctx: RequestContext,
    methodCode: string,
    orderNo: string,
    outcome: PaymentOutcome,
  ): Promise<RecordResult> {
    const repo = this.connection.getRepository(ctx, GatewaykitPaymentAttempt);
    const attempt = await findAttempt(repo, ctx, methodCode, orderNo);
    if (!attempt) return { kind: 'unknown-order' };

    if (outcome.status === 'succeeded' || (outcome.status === 'failed' && outcome.amount !== undefined)) {
      try {
        assertAmountMatches(outcome, attempt.orderAmount, attempt.currency);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        Logger.error(`Order ${attempt.orderCode} attempt ${orderNo}: ${message}`, loggerCtx);
        await this.note(
          ctx,
          attempt,
          `Gateway result for ${orderNo} ignored: ${message}. Check the merchant portal.`,
        );
        return { kind: 'mismatch', attempt, message };
      }
    }

    const { next, changed } = mergeOutcome(outcomeOfAttempt(attempt), outcome);
    if (!changed) return { kind: 'duplicate', attempt };

    // Database-level claim: only the writer that moves this exact version forward performs side effects.
    const changes = {
      status: next.status,
      tradeNo: next.tradeNo ?? attempt.tradeNo,
      maskCardNo: next.maskCardNo ?? attempt.maskCardNo,
      message: messageOf(next)?.slice(0, 500) ?? attempt.message,
      // A final answer frees the order's charge claim; an open one keeps it (attempt-claim.ts).
      openSlot: next.status === 'succeeded' || next.status === 'failed' ? null : attempt.openSlot,
      version: attempt.version + 1,
    };
    const update = await repo
      .createQueryBuilder()
      .update(GatewaykitPaymentAttempt)
      .set(changes)
      .where('id = :id AND version = :version', { id: attempt.id, version: attempt.version })
      .execute();
    if (update.affected === 0) return { kind: 'duplicate', attempt };
    const updated = Object.assign(attempt, changes);

    const state = paymentStateFor(next);
    if (state) await this.addPayment(ctx, updated, next, state);
    return { kind: 'recorded', attempt: updated, outcome: next };
  }

  /**
   * Gateway notices that are not about the payment's status (refund, chargeback): a private order
   * note for the admin, once per notice body. Returns false when the orderNo is not of this channel.
   */
  async noteEvent(ctx: RequestContext, methodCode: string, orderNo: string, text: string): Promise<boolean> {
    return this.connection.withTransaction(ctx, async (txCtx) => {
      const repo = this.connection.getRepository(txCtx, GatewaykitPaymentAttempt);
      const attempt = await findAttempt(repo, txCtx, methodCode, orderNo);
      if (!attempt) return false;
      await this.note(txCtx, attempt, text);
      return true;
    });
  }

  private async addPayment(
    ctx: RequestContext,
    attempt: GatewaykitPaymentAttempt,
    outcome: PaymentOutcome,
    state: 'Settled' | 'Declined',
  ): Promise<void> {
    let order = await this.orderService.findOne(ctx, attempt.orderId, ['payments']);
    if (!order) throw new Error(`Order ${attempt.orderCode} not found in its channel`);
    const tradeNo = outcome.tradeNo ?? attempt.tradeNo ?? undefined;

    if (state === 'Settled') {
      if (tradeNo && order.payments.some((p) => p.transactionId === tradeNo && p.state === 'Settled')) return;
      if (order.state === 'AddingItems') {
        // The shopper went back to the cart while paying: the money is taken, so the order moves on.
        const moved = await this.orderService.transitionToState(ctx, order.id, 'ArrangingPayment');
        if (!(moved instanceof Order)) {
          await this.chargedButUnapplied(ctx, attempt, tradeNo, moved.message);
          return;
        }
        order = moved;
      }
      if (!PAYABLE_STATES.includes(order.state)) {
        await this.chargedButUnapplied(ctx, attempt, tradeNo, `order is already in state ${order.state}`);
        return;
      }
    } else if (!PAYABLE_STATES.includes(order.state)) {
      // A decline for an order that is no longer waiting for payment changes nothing.
      return;
    }

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
        await this.chargedButUnapplied(ctx, attempt, tradeNo, result.message);
      }
    } finally {
      discardTicket(ticket);
    }
  }

  /** The customer paid but Vendure cannot take the payment: make it loud, there is no refund API. */
  private async chargedButUnapplied(
    ctx: RequestContext,
    attempt: GatewaykitPaymentAttempt,
    tradeNo: string | undefined,
    reason: string,
  ): Promise<void> {
    const text =
      `Gateway trade ${tradeNo ?? '?'} (orderNo ${attempt.orderNo}, ${attempt.orderAmount} ${attempt.currency}) ` +
      `was charged but could not be added to the order: ${reason}. Refund or reconcile it in the gateway's merchant portal.`;
    Logger.error(`Order ${attempt.orderCode}: ${text}`, loggerCtx);
    await this.note(ctx, attempt, text);
  }

  private async note(ctx: RequestContext, attempt: GatewaykitPaymentAttempt, note: string): Promise<void> {
    await this.orderService.addNoteToOrder(ctx, { id: attempt.orderId, note, isPublic: false });
  }
}

function messageOf(outcome: PaymentOutcome): string | undefined {
  if (outcome.status === 'failed' || outcome.status === 'unknown') return outcome.reason;
  return outcome.orderInfo;
}

/** The attempt only if it was made in this channel through this payment method (credentials bind it). */
async function findAttempt(
  repo: Repository<GatewaykitPaymentAttempt>,
  ctx: RequestContext,
  methodCode: string,
  orderNo: string,
): Promise<GatewaykitPaymentAttempt | undefined> {
  const attempt = await repo.findOne({ where: { orderNo } });
  if (!attempt) return undefined;
  if (String(attempt.channelId) !== String(ctx.channelId)) return undefined;
  if (attempt.paymentMethodCode !== methodCode) return undefined;
  return attempt;
}
