import {
  type ChargebackDetails,
  type ChargebackEvent,
  chargebackKey,
  findNoticedRefund,
  judgeRefundNotice,
  type KnownRefund,
  type RefundEvent,
} from '@gatewaykit/core';

/**
 * What the payment data keeps about the payment's refunds and chargebacks (Medusa shows the payment
 * data in the admin; the widget reads these). Pure rules, so every case is unit-tested.
 */

/**
 * - `pending`: the gateway accepted it; its `refund.*` notification (or a query) settles it;
 * - `unknown`: the answer to the refund request was lost: it may or may not exist at the gateway and
 *   is never sent again (docs/safety-rules.md#unknown-outcome); the notification decides;
 * - `succeeded` / `failed`: settled; final.
 */
export type GatewayRefundStatus = 'pending' | 'unknown' | 'succeeded' | 'failed';

export interface GatewayRefund {
  /** Medusa's refund id, sent as the gateway's merTrackNo (the same id never refunds twice). */
  merTrackNo: string;
  /** The gateway's refund number; missing while the answer is lost. */
  batchNo?: string | undefined;
  /** Gateway amount and currency of the refund. */
  amount: string;
  currency: string;
  refundType: '1' | '2';
  status: GatewayRefundStatus;
  /** The gateway's reason for a failed refund (redacted by core). */
  reason?: string | undefined;
  requestedAt: string;
  settledAt?: string | undefined;
  /** When an unsettled refund was reported to the merchant (once). */
  alertedAt?: string | undefined;
  /**
   * Written right before the refund request left, its answer not stored yet (lib/refund-records.ts):
   * a notice waits while Medusa may still write the answer over it.
   */
  sending?: true | undefined;
}

/** A chargeback as kept on the payment: core's details, plus when it reached this store. */
export interface GatewayChargeback extends ChargebackDetails {
  receivedAt: string;
}

const SETTLED: ReadonlySet<GatewayRefundStatus> = new Set(['succeeded', 'failed']);

/** The merTrackNos (Medusa refund ids) of the refunds the gateway failed: their rows returned nothing. */
export function failedRefundIds(refunds: readonly GatewayRefund[] | undefined): Set<string> {
  return new Set((refunds ?? []).filter((r) => r.status === 'failed').map((r) => r.merTrackNo));
}

function isSettledRefund(refund: GatewayRefund): boolean {
  return SETTLED.has(refund.status);
}

/**
 * The list with `entry` stored under its merTrackNo. A settled entry is never moved back to
 * pending/unknown (a notice may have settled it while the refund request was still answering).
 */
export function withRefund(
  refunds: readonly GatewayRefund[] | undefined,
  entry: GatewayRefund,
): GatewayRefund[] {
  const list = [...(refunds ?? [])];
  const index = list.findIndex((refund) => refund.merTrackNo === entry.merTrackNo);
  if (index < 0) return [...list, entry];
  const current = list[index]!;
  if (isSettledRefund(current) && !isSettledRefund(entry)) {
    list[index] = { ...entry, ...current, batchNo: current.batchNo ?? entry.batchNo };
  } else {
    list[index] = { ...current, ...entry, batchNo: entry.batchNo ?? current.batchNo };
  }
  return list;
}

export type RefundEventResult =
  /** No refund of this payment matches the event (merTrackNo, else batchNo). */
  | { kind: 'no-entry' }
  /** The event is about another amount or currency than the refund asked for: nothing changes. */
  | { kind: 'mismatch'; entry: GatewayRefund; message: string }
  /** Already settled the same way (a repeated notice). */
  | { kind: 'duplicate'; entry: GatewayRefund }
  /** Already settled the other way: the first settled result stays. */
  | { kind: 'conflict'; entry: GatewayRefund }
  | { kind: 'changed'; entry: GatewayRefund; refunds: GatewayRefund[] };

/** A payment data refund in the terms of core's refund-result rule. */
function knownRefundOf(entry: GatewayRefund, tradeNo?: string): KnownRefund {
  return {
    state: entry.status === 'succeeded' || entry.status === 'failed' ? entry.status : 'open',
    amount: entry.amount,
    currency: entry.currency,
    merTrackNo: entry.merTrackNo,
    batchNo: entry.batchNo,
    tradeNo,
  };
}

/** The refund of `refunds` a result is about (core's findNoticedRefund: by batchNo, else merTrackNo). */
export function refundOfEvent(
  refunds: readonly GatewayRefund[] | undefined,
  event: Pick<RefundEvent, 'merTrackNo' | 'batchNo'>,
): GatewayRefund | undefined {
  return findNoticedRefund(refunds ?? [], event, (entry) => knownRefundOf(entry));
}

/**
 * What a refund's result (notification or query) does to the payment's refunds, as core's
 * judgeRefundNotice decides; `tradeNo` is the payment's trade, which the result must be about.
 */
export function applyRefundEvent(
  refunds: readonly GatewayRefund[] | undefined,
  event: RefundEvent,
  now: Date = new Date(),
  tradeNo?: string,
): RefundEventResult {
  const entry = refundOfEvent(refunds, event);
  if (!entry) return { kind: 'no-entry' };
  const verdict = judgeRefundNotice(knownRefundOf(entry, tradeNo), event);
  switch (verdict.kind) {
    case 'contradicts':
      return {
        kind: 'mismatch',
        entry,
        message: `the gateway reported refund ${event.batchNo ?? entry.merTrackNo} ${event.status}, but ${verdict.message}`,
      };
    case 'repeat':
      return { kind: 'duplicate', entry };
    case 'conflict':
      return { kind: 'conflict', entry };
    case 'settle': {
      const settled: GatewayRefund = {
        ...entry,
        sending: undefined,
        batchNo: entry.batchNo ?? event.batchNo,
        status: verdict.status,
        reason: verdict.status === 'failed' ? (event.reason ?? 'no reason given') : entry.reason,
        settledAt: now.toISOString(),
      };
      return { kind: 'changed', entry: settled, refunds: withRefund(refunds, settled) };
    }
  }
}

/** The chargebacks with the event's added, or `added: false` when it is already there (a repeat). */
export function withChargeback(
  chargebacks: readonly GatewayChargeback[] | undefined,
  event: ChargebackEvent,
  now: Date = new Date(),
): { added: boolean; chargeback: GatewayChargeback; chargebacks: GatewayChargeback[] } {
  const list = [...(chargebacks ?? [])];
  const chargeback: GatewayChargeback = {
    batchNo: event.batchNo,
    tradeNo: event.tradeNo,
    amount: event.amount,
    currency: event.currency,
    reason: event.reason,
    replyDeadline: event.replyDeadline,
    cpdDate: event.cpdDate,
    noticeDate: event.noticeDate,
    receivedAt: now.toISOString(),
  };
  const key = chargebackKey(chargeback);
  const existing = list.find((item) => chargebackKey(item) === key);
  if (existing) return { added: false, chargeback: existing, chargebacks: list };
  return { added: true, chargeback, chargebacks: [...list, chargeback] };
}
