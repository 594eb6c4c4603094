import { closeOpenAttempt, redactText } from '@gatewaykit/core';
import { Inject, Injectable } from '@nestjs/common';
import { Logger, OrderService, type RequestContext, TransactionalConnection } from '@vendure/core';
import { GATEWAYKIT_PLUGIN_OPTIONS, loggerCtx } from '../constants';
import { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import { ChannelContextService } from '../http/channel-context.service';
import type { GatewaykitPluginOptions } from '../types';
import { attemptClockNow } from './attempt-clock';
import { administratorName } from './order-notes.service';
import { PaymentRecorderService } from './payment-recorder.service';
import { reconcileSettings } from './reconcile-settings';
import { isUnappliedCharge, releaseUnappliedCharge } from './unapplied-charge';

export interface CloseAttemptReport {
  closed: boolean;
  /** The attempt's status after the call ('none' when the channel has no such attempt). */
  status: string;
  reason: string;
}

/**
 * The merchant closes an attempt the reconciliation left open for a person (docs/inbound.md#closing-an-attempt):
 * core's closeOpenAttempt records it failed with the note, through the attempt store of the attempt's
 * own channel and method (as the reconciliation records), which frees the order; a private order
 * note says who closed it. A charge Vendure could not add to the order is released instead (`release`).
 * Only attempts of the admin's channel: a permission is granted per channel.
 */
@Injectable()
export class CloseAttemptService {
  constructor(
    private readonly connection: TransactionalConnection,
    private readonly channels: ChannelContextService,
    private readonly recorder: PaymentRecorderService,
    private readonly orderService: OrderService,
    @Inject(GATEWAYKIT_PLUGIN_OPTIONS) private readonly options: GatewaykitPluginOptions,
  ) {}

  async close(adminCtx: RequestContext, orderNo: string, note: string): Promise<CloseAttemptReport> {
    const row = await this.attemptOf(adminCtx, orderNo);
    // Another channel's attempt is answered like a missing one: its existence is not this admin's to know;
    // another method's hold (other-method-hold.ts) is no gateway attempt.
    if (!row || row.status === 'held')
      return { closed: false, status: 'none', reason: `no payment attempt ${orderNo} in this channel` };
    const ctx = await this.channels.forChannelId(row.channelId);
    if (!ctx)
      return { closed: false, status: row.status, reason: `channel ${row.channelId} no longer exists` };
    if (isUnappliedCharge(row)) return this.release(adminCtx, ctx, row, note);

    const result = await closeOpenAttempt(
      this.recorder.attemptsOf(ctx, row.paymentMethodCode),
      orderNo,
      note,
      {
        // On the database's clock, as the reconciliation judges the same wait (attempt-clock.ts).
        sentMsAgo: (attempt) => attemptClockNow() - attempt.row.createdAt.getTime(),
        closeAfterMs: closeAfterMs(this.options),
      },
    );
    if (result.kind === 'refused') {
      const now = await this.attemptOf(adminCtx, orderNo);
      return { closed: false, status: now?.status ?? 'none', reason: redactText(result.reason) };
    }
    await this.noteBy(adminCtx, row, `Payment attempt ${orderNo} closed by`, note);
    return { closed: true, status: 'failed', reason: result.reason };
  }

  /**
   * A charge Vendure could not add to the order (unapplied-charge.ts) stays succeeded: the merchant,
   * having refunded it in the portal or added the payment by hand, frees the order it keeps. Read again
   * and changed under the attempt's exclusive section, by a versioned update, so it is released once.
   */
  private async release(
    adminCtx: RequestContext,
    ctx: RequestContext,
    row: GatewaykitPaymentAttempt,
    note: string,
  ): Promise<CloseAttemptReport> {
    const store = this.recorder.attemptsOf(ctx, row.paymentMethodCode);
    const released = await store.inTransaction(row.orderNo, async (tx) => {
      const repo = this.connection.getRepository(tx, GatewaykitPaymentAttempt);
      const current = await repo.findOne({ where: { id: row.id } });
      return current ? releaseUnappliedCharge(repo, current) : false;
    });
    if (!released) {
      return {
        closed: false,
        status: 'succeeded',
        reason: `payment attempt ${row.orderNo} is already succeeded`,
      };
    }
    await this.noteBy(
      adminCtx,
      row,
      `Payment attempt ${row.orderNo} (charged but not applied) released by`,
      note,
    );
    return {
      closed: true,
      status: 'succeeded',
      reason: `the order is no longer held by payment attempt ${row.orderNo}; its charge stays recorded`,
    };
  }

  /** A private order note naming the admin, who is also its author in the history. */
  private async noteBy(
    adminCtx: RequestContext,
    row: GatewaykitPaymentAttempt,
    what: string,
    note: string,
  ): Promise<void> {
    const text = redactText(`${what} ${administratorName(adminCtx)}: ${note.trim()}`);
    Logger.info(`Order ${row.orderCode}: ${text}`, loggerCtx);
    await this.orderService.addNoteToOrder(adminCtx, { id: row.orderId, note: text, isPublic: false });
  }

  private attemptOf(ctx: RequestContext, orderNo: string): Promise<GatewaykitPaymentAttempt | null> {
    return this.connection.rawConnection
      .getRepository(GatewaykitPaymentAttempt)
      .findOne({ where: { orderNo, channelId: String(ctx.channelId) } });
  }
}

/**
 * How old an attempt must be before it is closed by hand (core's CloseAge): the reconciliation's
 * no-record window, after which no gateway page can still be paid, and then its wait, so a run has read
 * the gateway since.
 */
function closeAfterMs(options: GatewaykitPluginOptions): number {
  const { noRecordAfterMs, afterMs } = reconcileSettings(options).settings;
  return noRecordAfterMs + afterMs;
}
