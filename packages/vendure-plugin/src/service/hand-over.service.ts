import { Injectable } from '@nestjs/common';
import { type ID, Logger, type RequestContext } from '@vendure/core';
import { loggerCtx } from '../constants';
import type { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import { OrderNotes } from './order-notes.service';
import { PaymentRecorderService } from './payment-recorder.service';
import type { ContextOf } from './reconcile-settings';

/** What a hand-over did, as the report's reason says it. */
export type HandOverResult =
  | 'said on the order'
  | 'left to a person (said on the order before)'
  | 'left to a person; its channel is gone, said in the log'
  | 'settled meanwhile: nothing said';

/**
 * What the reconciliation leaves to a person (docs/safety-rules.md): said once as a private note on the
 * order, and in the error log when said. The note is written in the order's exclusive section (the
 * attempt's and the order's row locks), so runs that overlap (the scheduled task on one instance, the
 * Admin API mutation on another) say it once, and only while `stillDue` holds as read there: what a
 * notice or an administrator settled meanwhile is not handed over after it.
 */
@Injectable()
export class HandOver {
  constructor(
    private readonly notes: OrderNotes,
    private readonly recorder: PaymentRecorderService,
  ) {}

  async say(
    row: GatewaykitPaymentAttempt,
    orderId: ID,
    text: string,
    contextOf: ContextOf,
    stillDue: (tx: RequestContext) => Promise<boolean> = async () => true,
  ): Promise<HandOverResult> {
    const ctx = await contextOf(row.channelId);
    if (!ctx) {
      Logger.error(`Order ${row.orderCode}: ${text} (its channel is gone)`, loggerCtx);
      return 'left to a person; its channel is gone, said in the log';
    }
    return this.recorder
      .attemptsOf(ctx, row.paymentMethodCode)
      .inTransaction(row.orderNo, async (tx): Promise<HandOverResult> => {
        if (!(await stillDue(tx))) return 'settled meanwhile: nothing said';
        if (!(await this.notes.noteOnce(tx, orderId, text)))
          return 'left to a person (said on the order before)';
        Logger.error(`Order ${row.orderCode}: ${text}`, loggerCtx);
        return 'said on the order';
      });
  }
}
