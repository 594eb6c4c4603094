import {
  chargebackLookbackMs,
  DEFAULT_PENDING_AFTER_MS,
  listRecentChargebacks,
  reconcileAndRecord,
  reconcileRefund,
  redactedErrorText,
  redactText,
} from '@gatewaykit/core';
import { Inject, Injectable } from '@nestjs/common';
import {
  type ID,
  Logger,
  Payment,
  Refund,
  type RequestContext,
  TransactionalConnection,
} from '@vendure/core';
import { MethodConfigError } from '../config/method-args';
import { GATEWAYKIT_PLUGIN_OPTIONS, loggerCtx } from '../constants';
import { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import { GatewaykitRefundIntent } from '../entity/refund-intent.entity';
import { ChannelContextService } from '../http/channel-context.service';
import type { GatewaykitPluginOptions } from '../types';
import { attemptClockNow } from './attempt-clock';
import { flowOfAttemptMode } from './attempt-guard';
import { storedAnswerOfAttempt } from './attempt-outcome';
import { GatewayNoticeService } from './gateway-notice.service';
import { MethodConfigService, type ResolvedMethod } from './method-config.service';
import type { OrderAttempt } from './order-attempts';
import { OrderNotes } from './order-notes.service';
import { PaymentRecorderService } from './payment-recorder.service';
import { AGED_OUT_WINDOW_MS, agedOutAttempts, attemptsToReconcile } from './reconcile-batch';
import { type ChargebackSource, chargebackSources } from './reconcile-chargebacks';
import { RefundIntents } from './refund-intents';
import { refundMetadataOf } from './refund-notice';
import type { RefundMetadata } from './refund-request';

export const RECONCILE_DEFAULTS = {
  schedule: '*/10 * * * *',
  afterMs: 15 * 60 * 1000,
  noRecordAfterMs: DEFAULT_PENDING_AFTER_MS,
  batchSize: 200,
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
};

export interface ReconcileItem {
  kind: 'attempt' | 'refund' | 'chargeback';
  orderCode: string;
  /**
   * The attempt's orderNo, the refund's batchNo (merTrackNo when it has none), or the chargeback's
   * batchNo.
   */
  reference: string;
  before: string;
  after: string;
  reason: string;
}

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
  private readonly settings: typeof RECONCILE_DEFAULTS;
  /** 0: the chargeback pass is off. */
  private readonly chargebackLookbackMs: number;

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly channels: ChannelContextService,
    private readonly methods: MethodConfigService,
    private readonly recorder: PaymentRecorderService,
    private readonly notices: GatewayNoticeService,
    private readonly notes: OrderNotes,
    private readonly intents: RefundIntents,
    @Inject(GATEWAYKIT_PLUGIN_OPTIONS) options: GatewaykitPluginOptions,
  ) {
    const { chargebackLookbackDays, ...reconcile } = options.reconcile ?? {};
    this.settings = { ...RECONCILE_DEFAULTS, ...definedOnly(reconcile) };
    this.chargebackLookbackMs = chargebackLookbackMs(chargebackLookbackDays);
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
      const reason = await this.handOver(row, contextOf).catch((error: unknown) =>
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

    // Refunds the gateway numbered first: they can be read back. Those whose answer was lost (no
    // batchNo) only wait for their notice, and would otherwise fill every batch for a week.
    const numbered = await this.pendingGatewayRefunds(now, true, this.settings.batchSize);
    const unnumbered = await this.pendingGatewayRefunds(
      now,
      false,
      this.settings.batchSize - numbered.length,
    );
    for (const refund of [...numbered, ...unnumbered]) {
      const meta = refundMetadataOf(refund);
      if (meta.gatewaykit !== 'gateway') continue;
      const orderNo = (refund.payment?.metadata as { orderNo?: unknown } | undefined)?.orderNo;
      const row =
        typeof orderNo === 'string'
          ? await this.connection.rawConnection
              .getRepository(GatewaykitPaymentAttempt)
              .findOne({ where: { orderNo } })
          : null;
      if (!row || (only && row.channelId !== String(only.channelId))) continue;
      report.checked++;
      const batchNo = refund.transactionId || meta.batchNo;
      const result = await this.refund(row, batchNo, meta, contextOf).catch((error: unknown) => ({
        after: 'Pending',
        reason: failed(row.orderCode, `refund ${batchNo || meta.merTrackNo || String(refund.id)}`, error),
      }));
      if (result.after !== 'Pending') report.changed++;
      report.items.push({
        kind: 'refund',
        orderCode: row.orderCode,
        reference: batchNo || meta.merTrackNo || String(refund.id),
        before: 'Pending',
        after: result.after,
        reason: result.reason,
      });
    }
    // Refunds sent whose record was lost and whose notice has not come: read back by batchNo while
    // younger than maxAgeMs, handed to a person once when they cannot be (no batchNo, or too old).
    const lostFrom = new Date(now - this.settings.maxAgeMs - AGED_OUT_WINDOW_MS);
    const lostTo = new Date(now - this.settings.afterMs);
    const lostNumbered = await this.intents.unanswered(lostFrom, lostTo, true, this.settings.batchSize);
    const lostUnnumbered = await this.intents.unanswered(
      lostFrom,
      lostTo,
      false,
      this.settings.batchSize - lostNumbered.length,
    );
    for (const intent of [...lostNumbered, ...lostUnnumbered]) {
      const item = await this.lostRefund(intent, contextOf, only, now).catch(
        (error: unknown): ReconcileItem => ({
          kind: 'refund',
          orderCode: '',
          reference: intent.batchNo ?? intent.merTrackNo,
          before: 'record lost',
          after: 'record lost',
          reason: failed(`(order ${intent.orderId})`, `refund ${intent.merTrackNo}`, error),
        }),
      );
      if (!item) continue;
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
    contextOf: (channelId: string) => Promise<RequestContext | undefined>,
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
    contextOf: (channelId: string) => Promise<RequestContext | undefined>,
    now: number,
  ): Promise<{ changed: boolean; after: string; reason: string }> {
    const resolved = await this.methodOf(row, contextOf);
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
   * takes over. Said once on the order (and in the error log when said), never silently dropped.
   */
  private async handOver(
    row: GatewaykitPaymentAttempt,
    contextOf: (channelId: string) => Promise<RequestContext | undefined>,
  ): Promise<string> {
    const text =
      `Gateway reconciliation stopped asking about payment attempt ${row.orderNo} (${row.status}) ` +
      `${durationText(this.settings.maxAgeMs)} after it was sent: the gateway's records did not settle it. ` +
      'Look it up in the merchant portal: if it was paid, settle or refund it there; then close the attempt (gatewaykitCloseAttempt).';
    const said = await this.leaveToPerson(row, row.orderId, text, contextOf);
    return said === 'said on the order'
      ? `left to a person after ${durationText(this.settings.maxAgeMs)}: ${said}`
      : said;
  }

  /** Says `text` once on the order (and in the error log when said); the report's reason. */
  private async leaveToPerson(
    row: GatewaykitPaymentAttempt,
    orderId: ID,
    text: string,
    contextOf: (channelId: string) => Promise<RequestContext | undefined>,
  ): Promise<string> {
    const ctx = await contextOf(row.channelId);
    if (!ctx) {
      Logger.error(`Order ${row.orderCode}: ${text} (its channel is gone)`, loggerCtx);
      return 'left to a person; its channel is gone, said in the log';
    }
    if (!(await this.notes.noteOnce(ctx, orderId, text)))
      return 'left to a person (said on the order before)';
    Logger.error(`Order ${row.orderCode}: ${text}`, loggerCtx);
    return 'said on the order';
  }

  /**
   * The plugin's gateway refunds still Pending, oldest first, with or without the gateway's refund
   * number (`transactionId`). Only gateway refunds: manual ones wait for the admin (marked in the JSON
   * metadata).
   */
  private async pendingGatewayRefunds(now: number, numbered: boolean, limit: number): Promise<Refund[]> {
    if (limit <= 0) return [];
    const query = this.connection.rawConnection
      .getRepository(Refund)
      .createQueryBuilder('refund')
      .leftJoinAndSelect('refund.payment', 'payment')
      .where('refund.state = :state', { state: 'Pending' })
      .andWhere('refund.metadata LIKE :mark', { mark: '%"gatewaykit":"gateway"%' })
      .andWhere('refund.createdAt BETWEEN :from AND :to', {
        from: new Date(now - this.settings.maxAgeMs),
        to: new Date(now - this.settings.afterMs),
      })
      .andWhere(
        numbered
          ? "refund.transactionId IS NOT NULL AND refund.transactionId <> ''"
          : "(refund.transactionId IS NULL OR refund.transactionId = '')",
      );
    return query.orderBy('refund.createdAt', 'ASC').take(limit).getMany();
  }

  private async refund(
    row: GatewaykitPaymentAttempt,
    batchNo: string | undefined,
    meta: Partial<RefundMetadata>,
    contextOf: (channelId: string) => Promise<RequestContext | undefined>,
  ): Promise<{ after: string; reason: string }> {
    if (!batchNo) {
      return {
        after: 'Pending',
        reason: `the gateway's answer to refund ${meta.merTrackNo ?? '?'} was lost and no notice arrived: there is no batchNo to query; look it up in the merchant portal`,
      };
    }
    const resolved = await this.methodOf(row, contextOf);
    if ('reason' in resolved) return { after: 'Pending', reason: resolved.reason };
    const read = await reconcileRefund(resolved.method.client, batchNo);
    if (!read.event) return { after: 'Pending', reason: read.reason };
    const store = this.recorder.attemptsOf(resolved.ctx, row.paymentMethodCode);
    const applied = await this.notices.refund(
      row,
      { ...read.event, batchNo, merTrackNo: read.event.merTrackNo ?? meta.merTrackNo },
      (work) => store.inTransaction(row.orderNo, work),
      `record of refund ${batchNo}`,
    );
    const after = applied === 'settled' ? 'Settled' : applied === 'failed' ? 'Failed' : 'Pending';
    return { after, reason: `${read.reason}${after === 'Pending' ? ` (${applied})` : ''}` };
  }

  /**
   * A refund sent whose record was lost (refund-intents.ts): one the gateway numbered is read back by its
   * batchNo while younger than `maxAgeMs` and applied as its notice would be (GatewayNoticeService: made,
   * kept as a refund Vendure does not count; failed, the payment refunds again). One that cannot be read
   * back (its answer was lost too, or the read-back had its time) is handed to a person once, on its
   * order. Undefined when a Refund holds it after all, or it is another channel's.
   */
  private async lostRefund(
    intent: GatewaykitRefundIntent,
    contextOf: (channelId: string) => Promise<RequestContext | undefined>,
    only: { channelId: ID } | undefined,
    now: number,
  ): Promise<ReconcileItem | undefined> {
    const payment = await this.connection.rawConnection
      .getRepository(Payment)
      .findOne({ where: { id: intent.paymentId }, relations: ['refunds'] });
    const held = payment?.refunds?.some(
      (refund) => refundMetadataOf(refund).merTrackNo === intent.merTrackNo,
    );
    const orderNo = (payment?.metadata as { orderNo?: unknown } | undefined)?.orderNo;
    if (!payment || held || typeof orderNo !== 'string') return undefined;
    const row = await this.connection.rawConnection
      .getRepository(GatewaykitPaymentAttempt)
      .findOne({ where: { orderNo } });
    if (!row || (only && row.channelId !== String(only.channelId))) return undefined;
    const batchNo = intent.batchNo ?? undefined;
    const item = (after: string, reason: string): ReconcileItem => ({
      kind: 'refund',
      orderCode: row.orderCode,
      reference: batchNo ?? intent.merTrackNo,
      before: 'record lost',
      after,
      reason,
    });
    if (batchNo && intent.createdAt.getTime() >= now - this.settings.maxAgeMs) {
      const result = await this.refund(row, batchNo, { merTrackNo: intent.merTrackNo }, contextOf);
      if (result.after !== 'Pending') return item(result.after, result.reason);
      const answered = await this.connection.rawConnection
        .getRepository(GatewaykitRefundIntent)
        .findOne({ where: { merTrackNo: intent.merTrackNo } });
      // A Refund committed meanwhile was settled by the read-back instead: its state is the outcome.
      return item(answered?.answer ?? 'record lost', result.reason);
    }
    return item('record lost', await this.handOverLostRefund(row, intent, contextOf));
  }

  /**
   * A lost refund the run cannot read back: said once on its order (and in the error log when said),
   * since every refund of its payment is refused until its notice comes or an administrator closes it.
   */
  private async handOverLostRefund(
    row: GatewaykitPaymentAttempt,
    intent: GatewaykitRefundIntent,
    contextOf: (channelId: string) => Promise<RequestContext | undefined>,
  ): Promise<string> {
    const why = intent.batchNo
      ? `the gateway's record of it (batchNo ${intent.batchNo}) did not settle it within ${durationText(this.settings.maxAgeMs)}`
      : "the gateway's answer was lost too, so there is no refund number to read it back by";
    const text =
      `Gateway reconciliation: refund ${intent.merTrackNo} (${intent.refundAmount} ${intent.currency}) was sent to the gateway at ` +
      `${intent.createdAt.toISOString()}, but its record here was lost (the request that sent it did not finish) and ${why}. ` +
      'No refund of this payment is sent from here until its notice says how it ended. ' +
      `Look it up by merTrackNo ${intent.merTrackNo} in the merchant portal, then close it ` +
      '(gatewaykitCloseRefundIntent: made true if the portal shows it, false if not).';
    const said = await this.leaveToPerson(row, intent.orderId, text, contextOf);
    return said === 'said on the order' ? `left to a person: ${said}` : said;
  }

  private async methodOf(
    row: GatewaykitPaymentAttempt,
    contextOf: (channelId: string) => Promise<RequestContext | undefined>,
  ): Promise<{ ctx: RequestContext; method: ResolvedMethod } | { reason: string }> {
    const ctx = await contextOf(row.channelId);
    if (!ctx) return { reason: `channel ${row.channelId} no longer exists` };
    try {
      // A method disabled since still settles what was paid through it.
      return {
        ctx,
        method: await this.methods.resolve(ctx, row.paymentMethodCode, { includeDisabled: true }),
      };
    } catch (error) {
      if (!(error instanceof MethodConfigError)) throw error;
      return { reason: error.message };
    }
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

/**
 * A reconciliation item that failed (the report's reason): logged at error level naming the order, as
 * it fails again on every run while the money it is about waits.
 */
function failed(orderCode: string, what: string, error: unknown): string {
  Logger.error(
    `Order ${orderCode}: reconciliation of ${what} failed: ${redactedErrorText(error)}`,
    loggerCtx,
  );
  return `failed: ${redactedErrorText(error)}`;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A duration as an order note says it: days, minutes or seconds. */
function durationText(ms: number): string {
  const [count, unit] =
    ms >= 24 * 60 * 60 * 1000
      ? [Math.round(ms / (24 * 60 * 60 * 1000)), 'day']
      : ms >= 60 * 1000
        ? [Math.round(ms / (60 * 1000)), 'minute']
        : [Math.round(ms / 1000), 'second'];
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}
