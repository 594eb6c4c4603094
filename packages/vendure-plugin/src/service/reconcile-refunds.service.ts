import { reconcileRefund } from '@gatewaykit/core';
import { Inject, Injectable } from '@nestjs/common';
import { Payment, Refund, type RequestContext, TransactionalConnection } from '@vendure/core';
import { GATEWAYKIT_PLUGIN_OPTIONS } from '../constants';
import { GatewaykitPaymentAttempt } from '../entity/payment-attempt.entity';
import type { GatewaykitRefundIntent } from '../entity/refund-intent.entity';
import type { GatewaykitPluginOptions } from '../types';
import { GatewayNoticeService } from './gateway-notice.service';
import { HandOver } from './hand-over.service';
import { MethodConfigService, type ResolvedMethod } from './method-config.service';
import { methodOfAttempt } from './method-of-attempt';
import { PaymentRecorderService } from './payment-recorder.service';
import { AGED_OUT_WINDOW_MS } from './reconcile-batch';
import {
  type ContextOf,
  durationText,
  failed,
  type OnlyChannel,
  type ReconcileItem,
  type ReconcileSettings,
  reconcileSettings,
} from './reconcile-settings';
import { RefundIntents } from './refund-intents';
import { refundMetadataOf } from './refund-notice';
import type { RefundMetadata } from './refund-request';

/**
 * The reconciliation's refunds (docs/safety-rules.md#refund-intents): gateway refunds still Pending, and
 * refunds sent whose record was lost (refund intents no Refund holds). Those the gateway numbered are read
 * back by their batchNo (core's reconcileRefund) and applied as their notice would be
 * (GatewayNoticeService); what cannot be read back (no batchNo, its channel or method gone, or past
 * `maxAgeMs`) is handed to a person once, on its order (HandOver), so no refund waits unseen.
 */
@Injectable()
export class RefundReconciliation {
  private readonly settings: ReconcileSettings;

  constructor(
    private readonly connection: TransactionalConnection,
    private readonly methods: MethodConfigService,
    private readonly recorder: PaymentRecorderService,
    private readonly notices: GatewayNoticeService,
    private readonly intents: RefundIntents,
    private readonly handOver: HandOver,
    @Inject(GATEWAYKIT_PLUGIN_OPTIONS) options: GatewaykitPluginOptions,
  ) {
    this.settings = reconcileSettings(options).settings;
  }

  /** One run's refund items, each batch at most `batchSize`. */
  async items(now: number, only: OnlyChannel, contextOf: ContextOf): Promise<ReconcileItem[]> {
    return [
      ...(await this.pendingRefunds(now, only, contextOf)),
      ...(await this.agedPendingRefunds(now, only, contextOf)),
      ...(await this.lostRefunds(now, only, contextOf)),
    ];
  }

  /**
   * Pending gateway refunds between `afterMs` and `maxAgeMs`: those the gateway numbered first, since
   * they can be read back; those whose answer was lost (no batchNo) only wait for their notice (their
   * order was told when the answer was lost), and would otherwise fill every batch for a week.
   */
  private async pendingRefunds(
    now: number,
    only: OnlyChannel,
    contextOf: ContextOf,
  ): Promise<ReconcileItem[]> {
    const from = now - this.settings.maxAgeMs;
    const to = now - this.settings.afterMs;
    const numbered = await this.pendingGatewayRefunds(from, to, true, this.settings.batchSize);
    const unnumbered = await this.pendingGatewayRefunds(
      from,
      to,
      false,
      this.settings.batchSize - numbered.length,
    );
    const items: ReconcileItem[] = [];
    for (const refund of [...numbered, ...unnumbered]) {
      const row = await this.attemptOfPayment(refund.payment, only);
      if (!row) continue;
      const meta = refundMetadataOf(refund);
      const batchNo = refund.transactionId || meta.batchNo;
      const result = await this.readBack(row, batchNo, meta, contextOf).catch((error: unknown) => ({
        after: 'Pending',
        reason: failed(row.orderCode, `refund ${batchNo || meta.merTrackNo || String(refund.id)}`, error),
      }));
      items.push({
        kind: 'refund',
        orderCode: row.orderCode,
        reference: batchNo || meta.merTrackNo || String(refund.id),
        before: 'Pending',
        after: result.after,
        reason: result.reason,
      });
    }
    return items;
  }

  /**
   * Pending gateway refunds past `maxAgeMs` (within a week of it): the run stops asking about them and
   * says so once on their order, so a refund the customer may still be owed never drops out silently.
   */
  private async agedPendingRefunds(
    now: number,
    only: OnlyChannel,
    contextOf: ContextOf,
  ): Promise<ReconcileItem[]> {
    const aged = await this.pendingGatewayRefunds(
      now - this.settings.maxAgeMs - AGED_OUT_WINDOW_MS,
      now - this.settings.maxAgeMs - 1,
      undefined,
      this.settings.batchSize,
      // Newest first, as the lost refunds' hand-overs: those said before do not crowd out a new one.
      true,
    );
    const items: ReconcileItem[] = [];
    for (const refund of aged) {
      const row = await this.attemptOfPayment(refund.payment, only);
      if (!row) continue;
      const meta = refundMetadataOf(refund);
      const batchNo = refund.transactionId || meta.batchNo;
      const merTrackNo = meta.merTrackNo ?? String(refund.id);
      const text =
        `Gateway reconciliation stopped asking about refund ${merTrackNo} (${meta.refundAmount ?? '?'} ${meta.currency ?? ''}` +
        `${batchNo ? `, batchNo ${batchNo}` : ''}) ${durationText(this.settings.maxAgeMs)} after it was sent: ` +
        "the gateway's records did not settle it and no notice came. " +
        `Look it up by merTrackNo ${merTrackNo} in the merchant portal: if it was made, settle this refund by hand ` +
        '(with its batchNo); if not, nothing was refunded and the customer is still owed it.';
      const said = await this.handOver
        .say(row, row.orderId, text, contextOf, async (tx) => {
          const now = await this.connection.getRepository(tx, Refund).findOne({ where: { id: refund.id } });
          return now?.state === 'Pending';
        })
        .catch((error: unknown) => failed(row.orderCode, `refund ${merTrackNo}`, error));
      items.push({
        kind: 'refund',
        orderCode: row.orderCode,
        reference: batchNo || merTrackNo,
        before: 'Pending',
        after: 'Pending',
        reason:
          said === 'said on the order'
            ? `left to a person after ${durationText(this.settings.maxAgeMs)}: ${said}`
            : said,
      });
    }
    return items;
  }

  /**
   * Refunds sent whose record was lost and whose notice has not come (refund-intents.ts), three batches:
   * numbered ones younger than `maxAgeMs`, read back; those whose answer was lost too (no batchNo), and
   * numbered ones past `maxAgeMs`, handed to a person once. Each batch has its own limit, so neither
   * crowds out the other.
   */
  private async lostRefunds(now: number, only: OnlyChannel, contextOf: ContextOf): Promise<ReconcileItem[]> {
    const { afterMs, maxAgeMs, batchSize } = this.settings;
    const oldest = new Date(now - maxAgeMs - AGED_OUT_WINDOW_MS);
    const batches: [GatewaykitRefundIntent[], boolean][] = [
      [
        await this.intents.unanswered(new Date(now - maxAgeMs), new Date(now - afterMs), true, batchSize),
        true,
      ],
      // Hand-overs newest first: those said before stay listed (their note is found) until they leave the
      // window, and must not keep a new one from being said.
      [await this.intents.unanswered(oldest, new Date(now - afterMs), false, batchSize, true), false],
      [await this.intents.unanswered(oldest, new Date(now - maxAgeMs - 1), true, batchSize, true), false],
    ];
    const items: ReconcileItem[] = [];
    for (const [intents, readBack] of batches) {
      for (const intent of intents) {
        const item = await this.lostRefund(intent, readBack, only, contextOf).catch((error: unknown) => {
          const reason = failed(`(order ${intent.orderId})`, `refund ${intent.merTrackNo}`, error);
          // Its channel is not known yet: a run limited to one channel shows nothing of it (logged).
          if (only) return undefined;
          return lostItem(intent, '', 'record lost', reason);
        });
        if (item) items.push(item);
      }
    }
    return items;
  }

  /**
   * One lost refund: read back by its batchNo (`readBack`) and applied as its notice would be (made, kept
   * as a refund Vendure does not count; failed, the payment refunds again), or handed to a person.
   * Undefined when a Refund holds it after all (then marked `recorded`, so no run reads it again: Vendure
   * publishes no RefundEvent for some saved Refunds), or it is another channel's.
   */
  private async lostRefund(
    intent: GatewaykitRefundIntent,
    readBack: boolean,
    only: OnlyChannel,
    contextOf: ContextOf,
  ): Promise<ReconcileItem | undefined> {
    const payment = await this.connection.rawConnection
      .getRepository(Payment)
      .findOne({ where: { id: intent.paymentId }, relations: ['refunds'] });
    if (payment?.refunds?.some((refund) => refundMetadataOf(refund).merTrackNo === intent.merTrackNo)) {
      await this.intents.recordedAfterAll(intent.merTrackNo);
      return undefined;
    }
    const row = payment ? await this.attemptOfPayment(payment, only) : undefined;
    if (!row) return undefined;
    let why: string;
    if (!readBack || !intent.batchNo) {
      why = intent.batchNo
        ? `the gateway's record of it (batchNo ${intent.batchNo}) did not settle it within ${durationText(this.settings.maxAgeMs)}`
        : "the gateway's answer was lost too, so there is no refund number to read it back by";
    } else {
      const resolved = await methodOfAttempt(this.methods, row, contextOf);
      if (!('reason' in resolved)) {
        const meta = { merTrackNo: intent.merTrackNo };
        const result = await this.readBackWith(resolved, row, intent.batchNo, meta);
        if (result.after !== 'Pending') return lostItem(intent, row.orderCode, result.after, result.reason);
        // A Refund committed meanwhile was settled by the read-back instead: its state is the outcome.
        const answer = await this.intents.answerOf(intent.merTrackNo);
        return lostItem(intent, row.orderCode, answer ?? 'record lost', result.reason);
      }
      why = `the gateway cannot be asked about it (${resolved.reason})`;
    }
    return lostItem(
      intent,
      row.orderCode,
      'record lost',
      await this.handOverLost(row, intent, why, contextOf),
    );
  }

  /**
   * A lost refund the run cannot read back, said once on its order: every refund of its payment is
   * refused until its notice comes or an administrator closes it. No time in the text (each instance
   * reads `createdAt` in its own zone, and the note is matched by its text).
   */
  private async handOverLost(
    row: GatewaykitPaymentAttempt,
    intent: GatewaykitRefundIntent,
    why: string,
    contextOf: ContextOf,
  ): Promise<string> {
    const text =
      `Gateway reconciliation: refund ${intent.merTrackNo} (${intent.refundAmount} ${intent.currency}) was sent to the gateway from this store, ` +
      `but its record here was lost (the request that sent it did not finish) and ${why}. ` +
      'No refund of this payment is sent from here until its notice says how it ended. ' +
      `Look it up by merTrackNo ${intent.merTrackNo} in the merchant portal, then close it ` +
      `(gatewaykitCloseRefundIntent: made true if the portal shows it; false if it still shows none ${durationText(this.settings.notMadeCloseAfterMs)} after it was sent, since until then it may still be under way).`;
    const said = await this.handOver.say(row, intent.orderId, text, contextOf, (tx) =>
      this.intents.stillLost(tx, intent),
    );
    return said === 'said on the order' ? `left to a person: ${said}` : said;
  }

  /** A refund read back by its batchNo and applied as its notice would be; Pending while it cannot be. */
  private async readBack(
    row: GatewaykitPaymentAttempt,
    batchNo: string | undefined,
    meta: Partial<RefundMetadata>,
    contextOf: ContextOf,
  ): Promise<{ after: string; reason: string }> {
    if (!batchNo) {
      return {
        after: 'Pending',
        reason: `the gateway's answer to refund ${meta.merTrackNo ?? '?'} was lost and no notice arrived: there is no batchNo to query; look it up in the merchant portal`,
      };
    }
    const resolved = await methodOfAttempt(this.methods, row, contextOf);
    if ('reason' in resolved) return { after: 'Pending', reason: resolved.reason };
    return this.readBackWith(resolved, row, batchNo, meta);
  }

  /** readBack once the attempt's method is resolved (the lost-refund path resolves it itself). */
  private async readBackWith(
    resolved: { ctx: RequestContext; method: ResolvedMethod },
    row: GatewaykitPaymentAttempt,
    batchNo: string,
    meta: Partial<RefundMetadata>,
  ): Promise<{ after: string; reason: string }> {
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

  /** The gateway attempt a payment was made by, unless it is another channel's than `only`. */
  private async attemptOfPayment(
    payment: Payment | undefined,
    only: OnlyChannel,
  ): Promise<GatewaykitPaymentAttempt | undefined> {
    const orderNo = (payment?.metadata as { orderNo?: unknown } | undefined)?.orderNo;
    if (typeof orderNo !== 'string') return undefined;
    const row = await this.connection.rawConnection
      .getRepository(GatewaykitPaymentAttempt)
      .findOne({ where: { orderNo } });
    if (!row || (only && row.channelId !== String(only.channelId))) return undefined;
    return row;
  }

  /**
   * The plugin's gateway refunds still Pending created between `from` and `to`, oldest first (or
   * `newestFirst`), with
   * (`numbered`) or without the gateway's refund number (`transactionId`), or either. Only gateway
   * refunds: manual ones wait for the admin (marked in the JSON metadata).
   */
  private async pendingGatewayRefunds(
    from: number,
    to: number,
    numbered: boolean | undefined,
    limit: number,
    newestFirst = false,
  ): Promise<Refund[]> {
    if (limit <= 0) return [];
    const query = this.connection.rawConnection
      .getRepository(Refund)
      .createQueryBuilder('refund')
      .leftJoinAndSelect('refund.payment', 'payment')
      .where('refund.state = :state', { state: 'Pending' })
      .andWhere('refund.metadata LIKE :mark', { mark: '%"gatewaykit":"gateway"%' })
      .andWhere('refund.createdAt BETWEEN :from AND :to', { from: new Date(from), to: new Date(to) });
    if (numbered === true) query.andWhere("refund.transactionId IS NOT NULL AND refund.transactionId <> ''");
    if (numbered === false) query.andWhere("(refund.transactionId IS NULL OR refund.transactionId = '')");
    const refunds = await query
      .orderBy('refund.createdAt', newestFirst ? 'DESC' : 'ASC')
      .take(limit)
      .getMany();
    return refunds.filter((refund) => refundMetadataOf(refund).gatewaykit === 'gateway');
  }
}

/** A lost refund's line of the report. */
function lostItem(
  intent: GatewaykitRefundIntent,
  orderCode: string,
  after: string,
  reason: string,
): ReconcileItem {
  return {
    kind: 'refund',
    orderCode,
    reference: intent.batchNo ?? intent.merTrackNo,
    before: 'record lost',
    after,
    reason,
  };
}
