import {
  type AttemptStore,
  type CallbackEvent,
  type MerchantAlert,
  type PaymentOutcome,
  redactText,
  type StoredAttempt,
} from '@gatewaykit/core';
import { Logger, type RequestContext, type TransactionalConnection } from '@vendure/core';
import { loggerCtx } from '../constants';
import { GatewaykitPaymentAttempt, OPEN_SLOT } from '../entity/payment-attempt.entity';
import { conditionalUpdate, isDeadHold } from './attempt-claim';
import { lockedTransaction, singleConnection } from './attempt-lock';
import { outcomeOfAttempt } from './attempt-outcome';
import { OrderHeldByOtherMethodError } from './other-method-hold';
import { UNAPPLIED_MESSAGE } from './unapplied-charge';

/** What the recording changes on an attempt besides its outcome. */
type AttemptChanges = Partial<Pick<GatewaykitPaymentAttempt, 'openSlot' | 'message'>>;

/** A gateway payment attempt as Vendure stores it: one GatewaykitPaymentAttempt row. */
export interface OrderAttempt extends StoredAttempt {
  row: GatewaykitPaymentAttempt;
}

/** What the recorder does with the order once an attempt moved (inside the same transaction). */
export interface OrderEffects {
  /** For a success Vendure could not add to the order, why (undefined once it is on the order). */
  applyToOrder(
    ctx: RequestContext,
    row: GatewaykitPaymentAttempt,
    next: PaymentOutcome,
  ): Promise<string | undefined>;
  note(ctx: RequestContext, row: GatewaykitPaymentAttempt, text: string): Promise<void>;
  /**
   * Refund and chargeback notices of the attempt's trade; `exclusive` runs work in this store's
   * exclusive section. False when it is neither (the store notes it as it is).
   */
  notice(
    row: GatewaykitPaymentAttempt,
    event: CallbackEvent,
    exclusive: <T>(work: (tx: RequestContext) => Promise<T>) => Promise<T>,
  ): Promise<boolean>;
}

/**
 * Core's AttemptStore over the attempt rows of one channel and one payment method (docs/inbound.md):
 * an attempt made in another channel or through another method (other keys) is never found. Each
 * recording runs in one transaction holding the database's row locks on the attempt and its order
 * (attempt-lock.ts), so writers on every instance take turns; the versioned conditional update
 * stays the last guard of which writer moves an attempt.
 */
export class OrderAttempts implements AttemptStore<OrderAttempt> {
  /** The transaction's context while `exclusive` runs. */
  private tx: RequestContext | undefined;
  /**
   * Versioned rows: a final status is never written over (docs/performance.md). Not on an embedded
   * database: its one connection lets a plain read see another request's uncommitted row.
   */
  get finalOutcomesStay(): boolean {
    return !singleConnection(this.connection.rawConnection);
  }

  constructor(
    private readonly ctx: RequestContext,
    private readonly methodCode: string,
    private readonly connection: TransactionalConnection,
    private readonly effects: OrderEffects,
  ) {}

  async exclusive<T>(orderNo: string, work: () => Promise<T>): Promise<T> {
    return lockedTransaction(this.connection, this.ctx, orderNo, async (tx) => {
      this.tx = tx;
      try {
        return await work();
      } finally {
        this.tx = undefined;
      }
    });
  }

  /** `work` with the transaction's context, in the exclusive section of `orderNo`. */
  inTransaction<T>(orderNo: string, work: (tx: RequestContext) => Promise<T>): Promise<T> {
    return this.exclusive(orderNo, () => work(this.tx ?? this.ctx));
  }

  async find(orderNo: string): Promise<OrderAttempt | undefined> {
    const ctx = this.tx ?? this.ctx;
    const row = await this.connection
      .getRepository(ctx, GatewaykitPaymentAttempt)
      .findOne({ where: { orderNo } });
    // Another method's hold is no gateway attempt (other-method-hold.ts).
    if (!row || row.status === 'held') return undefined;
    if (String(row.channelId) !== String(this.ctx.channelId)) return undefined;
    if (row.paymentMethodCode !== this.methodCode) return undefined;
    return {
      orderNo,
      orderAmount: row.orderAmount,
      currency: row.currency,
      outcome: outcomeOfAttempt(row),
      row,
    };
  }

  async save(attempt: OrderAttempt, next: PaymentOutcome): Promise<boolean> {
    // Only inside `exclusive` (core calls it there): its transaction and row locks are what make the
    // versioned update and the payment one step. A context that merely holds a connection
    // (one-connection.ts) would pass Vendure's own transaction check, so the check is made here.
    const ctx = this.tx;
    if (!ctx) throw new Error(`gatewaykit: attempt ${attempt.orderNo} saved outside its exclusive section`);
    const { row } = attempt;
    if (next.status === 'succeeded' && row.openSlot === null && !(await this.takeSlotBack(ctx, row))) {
      return false;
    }
    const changes = {
      status: next.status,
      tradeNo: next.tradeNo ?? row.tradeNo,
      maskCardNo: next.maskCardNo ?? row.maskCardNo,
      message: messageOf(next)?.slice(0, 500) ?? row.message,
      // A failure frees the order's charge claim; an open answer keeps it (attempt-claim.ts), and so
      // does a success until its payment is on the order (keepOrFreeSlot).
      openSlot: next.status === 'failed' ? null : row.openSlot,
      version: row.version + 1,
    };
    const update = await this.connection
      .getRepository(ctx, GatewaykitPaymentAttempt)
      .createQueryBuilder()
      .update(GatewaykitPaymentAttempt)
      .set(changes)
      .where('id = :id AND version = :version', { id: row.id, version: row.version })
      .execute();
    if (update.affected === 0) return false;
    attempt.row = Object.assign(row, changes);
    const unapplied = await this.effects.applyToOrder(ctx, attempt.row, next);
    if (next.status === 'succeeded') await this.keepOrFreeSlot(ctx, attempt.row, unapplied);
    return true;
  }

  /**
   * A success for an attempt that no longer holds the order's slot (a page released after its window, or
   * a failure answered first) takes it back before its payment is added, in the same transaction, so
   * another method's payment cannot start meanwhile: its hold's insert waits on the slot and is refused
   * (other-method-hold.ts). A hold already there may be taking the shopper's money right now, so the
   * success waits for its answer (OrderHeldByOtherMethodError): added beside it, the order would keep two
   * payments with nothing said. A slot taken between the read and the update fails the update on the
   * unique index, which rolls the recording back for its next delivery. Another gateway attempt holding
   * the slot keeps it (even past its window: its row is not written here, since its own recording locks
   * it before the order, attempt-lock.ts); the success is added or flagged by the recorder as before. A
   * hold left by a killed request (past OTHER_METHOD_HOLD_MS) is freed: no recording locks a hold.
   * False when the attempt moved since it was read (as the status update below would find).
   */
  private async takeSlotBack(ctx: RequestContext, row: GatewaykitPaymentAttempt): Promise<boolean> {
    const repo = this.connection.getRepository(ctx, GatewaykitPaymentAttempt);
    const holder = await repo.findOne({ where: { orderId: row.orderId, openSlot: OPEN_SLOT } });
    if (holder?.status === 'held') {
      if (!isDeadHold(holder) || (await conditionalUpdate(repo, holder, { openSlot: null })) !== 1) {
        throw new OrderHeldByOtherMethodError(row.orderCode, row.orderNo);
      }
    } else if (holder) {
      return true;
    }
    return this.changed(ctx, row, { openSlot: OPEN_SLOT });
  }

  /**
   * A success on the order frees the order's slot; one Vendure refused keeps the slot it holds
   * (unapplied-charge.ts), in the same transaction, so no second charge can start before the merchant
   * has settled it.
   */
  private async keepOrFreeSlot(
    ctx: RequestContext,
    row: GatewaykitPaymentAttempt,
    unapplied: string | undefined,
  ): Promise<void> {
    if (unapplied === undefined) {
      if (row.openSlot !== null) await this.changeInSection(ctx, row, { openSlot: null });
      return;
    }
    await this.changeInSection(ctx, row, { message: `${UNAPPLIED_MESSAGE}: ${unapplied}`.slice(0, 500) });
  }

  /** A versioned change of the attempt inside its exclusive section, where no other writer can come first. */
  private async changeInSection(
    ctx: RequestContext,
    row: GatewaykitPaymentAttempt,
    changes: AttemptChanges,
  ): Promise<void> {
    if (!(await this.changed(ctx, row, changes))) {
      throw new Error(`gatewaykit: attempt ${row.orderNo} changed inside its exclusive section`);
    }
  }

  /** The versioned change (attempt-claim.ts), kept on `row` too; false when the attempt moved since read. */
  private async changed(
    ctx: RequestContext,
    row: GatewaykitPaymentAttempt,
    changes: AttemptChanges,
  ): Promise<boolean> {
    const repo = this.connection.getRepository(ctx, GatewaykitPaymentAttempt);
    if ((await conditionalUpdate(repo, row, changes)) !== 1) return false;
    Object.assign(row, changes, { version: row.version + 1 });
    return true;
  }

  async alert(alert: MerchantAlert): Promise<void> {
    if (alert.kind === 'paid-not-applied') {
      // No order of this channel and method has the orderNo: the log is the only place to say it.
      Logger.error(
        `PAID BUT NOT APPLIED: gateway payment orderNo ${alert.outcome.orderNo}, tradeNo ${alert.outcome.tradeNo ?? '?'} ` +
          `(${alert.outcome.amount ?? '?'} ${alert.outcome.currency ?? ''}) was taken but ${alert.reason} ` +
          `(payment method ${this.methodCode}). Refund or reconcile it in the gateway's merchant portal.`,
        loggerCtx,
      );
      return;
    }
    const { row } = alert.attempt as OrderAttempt;
    Logger.error(`Order ${row.orderCode} attempt ${row.orderNo}: ${alert.message}`, loggerCtx);
    await this.effects.note(
      this.ctx,
      row,
      `Gateway result for ${row.orderNo} ignored: ${alert.message}. Check the merchant portal.`,
    );
  }

  /**
   * Refund and chargeback notices change the refund they name or are kept on the payment (OrderEffects);
   * any other notice becomes a private order note. The payment's own state never changes here.
   */
  async notice(event: CallbackEvent, attempt: OrderAttempt | undefined): Promise<void> {
    if (!attempt) {
      // Another method's or channel's attempt, or none: its key may not change it (docs/SECURITY.md).
      Logger.warn(
        `Gateway notice ${redactText(event.type.slice(0, 100))} for orderNo ${redactText(String(event.data.orderNo ?? '?'))} ` +
          `names no attempt of payment method ${this.methodCode} in this channel: nothing changed`,
        loggerCtx,
      );
      return;
    }
    const handled = await this.effects.notice(attempt.row, event, (work) =>
      this.inTransaction(attempt.orderNo, work),
    );
    if (handled) return;
    const d = event.data as Record<string, unknown>;
    // Named by its batchNo, so two notices alike in all else are two notes (repeats of one are one).
    const text =
      `Gateway notice ${event.type} for trade ${String(d.tradeNo ?? '?')} (batchNo ${String(d.batchNo ?? '?')}): ` +
      `${String(d.amount ?? d.orderAmount ?? '?')} ${String(d.currency ?? d.orderCurrency ?? '')}` +
      (d.reason ? ` (${String(d.reason)})` : '') +
      '. Review it in the merchant portal.';
    Logger.warn(`Order ${attempt.row.orderCode}: ${redactText(text)}`, loggerCtx);
    await this.effects.note(this.ctx, attempt.row, redactText(text));
  }
}

function messageOf(outcome: PaymentOutcome): string | undefined {
  if (outcome.status === 'failed' || outcome.status === 'unknown') return outcome.reason;
  return outcome.orderInfo;
}
