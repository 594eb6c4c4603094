import { listRecentChargebacks, reconcileAndRecord, redactText } from '@gatewaykit/core';
import { Inject, Injectable } from '@nestjs/common';
import { type ID, Logger, type RequestContext, TransactionalConnection } from '@vendure/core';
import { MethodConfigError } from '../config/method-args';
import { GATEWAYKIT_PLUGIN_OPTIONS, loggerCtx } from '../constants';
import { GatewaykitPaymentAttempt, OWED_STATUSES } from '../entity/payment-attempt.entity';
import { ChannelContextService } from '../http/channel-context.service';
import type { GatewaykitPluginOptions } from '../types';
import { attemptClockNow } from './attempt-clock';
import { flowOfAttemptMode } from './attempt-guard';
import { storedAnswerOfAttempt } from './attempt-outcome';
import { GatewayNoticeService } from './gateway-notice.service';
import { HandOver } from './hand-over.service';
import { MethodConfigService, type ResolvedMethod } from './method-config.service';
import { methodOfAttempt } from './method-of-attempt';
import type { OrderAttempt } from './order-attempts';
import { OrderNotes } from './order-notes.service';
import { PaymentRecorderService } from './payment-recorder.service';
import { agedOutAttempts, attemptsToReconcile, movedToBackOfBatch } from './reconcile-batch';
import { type ChargebackSource, chargebackSources } from './reconcile-chargebacks';
import { RefundReconciliation } from './reconcile-refunds.service';
import {
  type ContextOf,
  durationText,
  failed,
  type ReconcileItem,
  type ReconcileSettings,
  reconcileSettings,
} from './reconcile-settings';

export { RECONCILE_DEFAULTS, type ReconcileItem } from './reconcile-settings';

export interface ReconcileReport {
  checked: number;
  changed: number;
  items: ReconcileItem[];
}

/**
 * Reconciliation (docs/payment-states.md, docs/safety-rules.md#unknown-outcome): payment attempts and
 * gateway refunds left without an answer past `afterMs` are read back from the gateway (core's
 * reconcileAttempt / reconcileRefund; nothing that moves money is sent) and recorded exactly as a
 * callback or refund notice would be: core's recordOutcome decides (never charged twice, never
 * backwards), and a trade the gateway never recorded ends failed and frees the order, unless the gateway
 * had acknowledged it: then it stays open and each run warns, naming the order, for a person to settle.
 * That is judged again on the row as it is when recorded, not only as the batch read it.
 */
@Injectable()
export class ReconcileService {
  private readonly settings: ReconcileSettings;
  /** 0: the chargeback pass is off. */
  private readonly chargebackLookbackMs: number;

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly channels: ChannelContextService,
    private readonly methods: MethodConfigService,
    private readonly recorder: PaymentRecorderService,
    private readonly notices: GatewayNoticeService,
    private readonly notes: OrderNotes,
    private readonly refunds: RefundReconciliation,
    private readonly handOver: HandOver,
    @Inject(GATEWAYKIT_PLUGIN_OPTIONS) options: GatewaykitPluginOptions,
  ) {
    ({ settings: this.settings, chargebackLookbackMs: this.chargebackLookbackMs } =
      reconcileSettings(options));
  }

  /** One run over every channel (the scheduled task), or over one channel (the Admin API mutation). */
  async run(only?: { channelId: ID }): Promise<ReconcileReport> {
    const report: ReconcileReport = { checked: 0, changed: 0, items: [] };
    const contexts = new Map<string, Promise<RequestContext | undefined>>();
    const contextOf = (channelId: string) => {
      let ctx = contexts.get(channelId);
      if (!ctx) {
        ctx = this.channels.forChannelId(channelId);
        contexts.set(channelId, ctx);
      }
      return ctx;
    };
    const now = attemptClockNow();
    const attemptRows = this.connection.rawConnection.getRepository(GatewaykitPaymentAttempt);
    const batch = { ...this.settings, now, channelId: only ? String(only.channelId) : undefined };
    const attempts = await attemptsToReconcile(attemptRows, batch);
    for (const row of attempts) {
      report.checked++;
      const item = await this.attempt(row, contextOf, now).catch((error: unknown) => ({
        changed: false,
        reason: failed(row.orderCode, `payment attempt ${row.orderNo}`, error),
        after: row.status,
      }));
      // Read: the next runs read the attempts that waited longer first (reconcile-batch.ts). Only an
      // order of reading, so a failed write of it does not stop the run.
      if (OWED_STATUSES.includes(row.status)) {
        await movedToBackOfBatch(attemptRows, row.id).catch((error: unknown) =>
          Logger.warn(
            `Reconciliation: payment attempt ${row.orderNo} not moved back in the queue: ${redactText(String(error))}`,
            loggerCtx,
          ),
        );
      }
      if (item.changed) report.changed++;
      report.items.push({
        kind: 'attempt',
        orderCode: row.orderCode,
        reference: row.orderNo,
        before: row.status,
        after: item.after,
        reason: item.reason,
      });
    }

    for (const row of await agedOutAttempts(attemptRows, batch)) {
      report.checked++;
      const reason = await this.handOverAttempt(row, contextOf).catch((error: unknown) =>
        failed(row.orderCode, `payment attempt ${row.orderNo}`, error),
      );
      report.items.push({
        kind: 'attempt',
        orderCode: row.orderCode,
        reference: row.orderNo,
        before: row.status,
        after: row.status,
        reason,
      });
    }

    for (const item of await this.refunds.items(now, only, contextOf)) {
      report.checked++;
      if (item.after !== item.before) report.changed++;
      report.items.push(item);
    }

    const sources =
      this.chargebackLookbackMs > 0 ? await chargebackSources(attemptRows, batch.channelId) : [];
    for (const source of sources) {
      const items = await this.chargebacks(source, contextOf, now).catch((error: unknown) => [
        chargebackItem(
          '',
          '',
          'error',
          failed(`(channel ${source.channelId})`, `the chargebacks of ${source.paymentMethodCode}`, error),
        ),
      ]);
      for (const item of items) if (item.after === 'recorded') report.changed++;
      report.items.push(...items);
    }
    if (report.checked > 0) {
      Logger.info(`Reconciliation: ${report.checked} checked, ${report.changed} changed`, loggerCtx);
    }
    return report;
  }

  /**
   * The chargebacks the gateway lists for one channel's method (core's listRecentChargebacks; docs/gateway-protocol.md#chargebacks-in-each-run), each
   * kept through the same path as its notice (GatewayNoticeService.chargeback), so one whose every
   * notice was lost is still kept on its payment and noted once. Those kept before, and those of no
   * attempt of this channel and method (another store on the same gateway account), give no item.
   */
  private async chargebacks(
    source: ChargebackSource,
    contextOf: ContextOf,
    now: number,
  ): Promise<ReconcileItem[]> {
    const ctx = await contextOf(source.channelId);
    if (!ctx) return [];
    let method: ResolvedMethod;
    try {
      method = await this.methods.resolve(ctx, source.paymentMethodCode, { includeDisabled: true });
    } catch (error) {
      if (error instanceof MethodConfigError) return [];
      throw error;
    }
    const listing = await listRecentChargebacks(method.client, {
      now,
      lookbackMs: this.chargebackLookbackMs,
    });
    const items: ReconcileItem[] = [];
    if (listing.error) {
      Logger.error(
        `Reconciliation of the chargebacks of ${source.paymentMethodCode}: ${listing.error}`,
        loggerCtx,
      );
      items.push(chargebackItem('', '', 'error', listing.error));
    }
    const attempts = this.connection.rawConnection.getRepository(GatewaykitPaymentAttempt);
    const store = this.recorder.attemptsOf(ctx, source.paymentMethodCode);
    for (const event of listing.events) {
      if (!event.orderNo) continue;
      const row = await attempts.findOne({
        where: {
          orderNo: event.orderNo,
          channelId: source.channelId,
          paymentMethodCode: source.paymentMethodCode,
        },
      });
      if (!row) continue;
      try {
        if (await this.notices.chargebackKept(ctx, row, event)) continue;
        const kept = await this.notices.chargeback(row, event, (work) =>
          store.inTransaction(row.orderNo, work),
        );
        if (kept === 'added') {
          const reason = `the gateway lists chargeback ${event.batchNo ?? '?'}, which no notice had brought`;
          items.push(chargebackItem(row.orderCode, event.batchNo ?? '', 'recorded', reason));
        }
      } catch (error) {
        const reason = failed(row.orderCode, `chargeback ${event.batchNo ?? '?'}`, error);
        items.push(chargebackItem(row.orderCode, event.batchNo ?? '', 'error', reason));
      }
    }
    return items;
  }

  private async attempt(
    row: GatewaykitPaymentAttempt,
    contextOf: ContextOf,
    now: number,
  ): Promise<{ changed: boolean; after: string; reason: string }> {
    const resolved = await methodOfAttempt(this.methods, row, contextOf);
    if ('reason' in resolved) {
      // Without its method or channel the attempt can never be read back, and it keeps its order.
      Logger.error(
        `Order ${row.orderCode}: payment attempt ${row.orderNo} cannot be reconciled: ${resolved.reason}. ` +
          'Look it up in the merchant portal, then close it (gatewaykitCloseAttempt) or settle the order.',
        loggerCtx,
      );
      return { changed: false, after: row.status, reason: resolved.reason };
    }
    const { ctx, method } = resolved;
    // A failure judged on the row as the batch read it holds only while the row, read again under the
    // attempt's lock, is still as judged (the gateway may have answered it meanwhile).
    const { decision, reason } = await reconcileAndRecord(
      method.client,
      this.recorder.attemptsOf(ctx, row.paymentMethodCode),
      {
        orderNo: row.orderNo,
        sentAt: row.createdAt,
        orderAmount: row.orderAmount,
        currency: row.currency,
        // What the gateway said so far: an attempt it acknowledged never fails for a missing record,
        // and a gateway page only takes a final outcome.
        stored: storedAnswerOfAttempt(row),
        flow: flowOfAttemptMode(row.mode),
      },
      { now, pendingAfterMs: this.settings.noRecordAfterMs },
      (attempt: OrderAttempt) => storedAnswerOfAttempt(attempt.row),
      (found) => {
        // Left open for a person, said on every run (no order note each time: the history would fill).
        if (!found.attention) return;
        Logger.warn(
          `Order ${row.orderCode}: payment attempt ${row.orderNo}: ${redactText(found.reason)}`,
          loggerCtx,
        );
      },
    );
    if (!decision) return { changed: false, after: row.status, reason };
    if (decision.kind === 'held-back') {
      return { changed: false, after: decision.attempt.row.status, reason };
    }
    if (decision.kind !== 'changed') {
      return {
        changed: false,
        after: row.status,
        reason: `${reason}; ${decision.kind}, nothing changed`,
      };
    }
    const text = `Gateway reconciliation: payment attempt ${row.orderNo} ${row.status} -> ${decision.next.status}: ${reason}.`;
    Logger.info(`Order ${row.orderCode}: ${text}`, loggerCtx);
    await this.notes.note(ctx, row.orderId, text);
    return { changed: true, after: decision.next.status, reason };
  }

  /**
   * An attempt past `maxAgeMs` the gateway's records never settled: the run stops asking, and a person
   * takes over. Said once on the order (HandOver), never silently dropped; not when it was settled meanwhile.
   */
  private async handOverAttempt(row: GatewaykitPaymentAttempt, contextOf: ContextOf): Promise<string> {
    const text =
      `Gateway reconciliation stopped asking about payment attempt ${row.orderNo} (${row.status}) ` +
      `${durationText(this.settings.maxAgeMs)} after it was sent: the gateway's records did not settle it. ` +
      'Look it up in the merchant portal: if it was paid, settle or refund it there; then close the attempt (gatewaykitCloseAttempt).';
    const said = await this.handOver.say(row, row.orderId, text, contextOf, async (tx) => {
      const now = await this.connection
        .getRepository(tx, GatewaykitPaymentAttempt)
        .findOne({ where: { orderNo: row.orderNo } });
      return now !== null && [...OWED_STATUSES, 'redirect'].includes(now.status);
    });
    return said === 'said on the order'
      ? `left to a person after ${durationText(this.settings.maxAgeMs)}: ${said}`
      : said;
  }
}

/** A chargeback's line of the report: `recorded` by this run, or `error`. */
function chargebackItem(
  orderCode: string,
  batchNo: string,
  after: 'recorded' | 'error',
  reason: string,
): ReconcileItem {
  return { kind: 'chargeback', orderCode, reference: batchNo, before: '', after, reason };
}
