import {
  type GatewayClient,
  type GatewayError,
  redact,
  refundBlockedBy,
  refundRequest,
  sendRefund,
} from '@gatewaykit/core';
import type {
  BigNumberInput,
  Logger,
  RefundPaymentInput,
  RefundPaymentOutput,
} from '@medusajs/framework/types';
import { MedusaError } from '@medusajs/framework/utils';
import type { SqlDatabase } from './charge-claim';
import { failedRefundIds, type GatewayRefund, refundOfEvent, withRefund } from './gateway-records';
import type { StoredSessions } from './open-charges';
import type { GatewaykitOptions } from './options';
import { lostRecords, RefundRecords } from './refund-records';
import { type GatewaykitSessionData, readSessionData } from './session-data';

/**
 * A Medusa refund sent to the gateway (docs/gateway-protocol.md#openapi-refunds-transactions-chargebacks):
 * once per Medusa refund row (its id is the merTrackNo), only of a successful trade, never more than the
 * chargebacks left (core's refundBlockedBy), through core's sendRefund; what the payment data keeps of
 * it is merged with what a notice stored meanwhile.
 */

/** The payment module's own services, for reading a payment's and a refund's latest rows. */
interface StoredRows<T> {
  retrieve(id: string, config: { select: string[] }): Promise<T>;
}
export type PaymentRows = StoredRows<{ id: string; data?: Record<string, unknown> | null }>;
export type RefundRows = StoredRows<{ id: string; payment_id?: string | null }> & {
  list(
    filters: { payment_id: string },
    config: { select: string[] },
  ): Promise<{ id: string; amount?: unknown; raw_amount?: unknown }[]>;
};

export interface GatewayRefundsDeps {
  logger: Logger;
  options: GatewaykitOptions;
  /** Asked at each refund (unit tests put a fake client in the provider). */
  client: () => GatewayClient;
  /** The provider's amount conversion (its errors are the request's fault). */
  amountOf: (input: { amount: BigNumberInput; currency_code: string }) => string;
  sessions?: StoredSessions | undefined;
  payments?: PaymentRows | undefined;
  refunds?: RefundRows | undefined;
  /** The store's database: each refund's entry is written there before it is sent (lib/refund-records.ts). */
  database?: SqlDatabase | undefined;
}

type RefundRow = { id: string; amount?: unknown; raw_amount?: unknown };

/** A refund the gateway refused (or that never reached it): Medusa deletes its refund row. */
function refundRefused(error: GatewayError, amount: string, currency: string): MedusaError {
  const message = String(redact(error.message)).replace(/^Gateway refused the request:\s*/, '');
  return new MedusaError(
    MedusaError.Types.NOT_ALLOWED,
    `The gateway refused the refund of ${amount} ${currency}: ${message}. No refund was recorded.`,
  );
}

export class GatewayRefunds {
  /** Where each refund's entry is written before it is sent; none without a database (unit tests). */
  private readonly records: RefundRecords | undefined;

  constructor(private readonly deps: GatewayRefundsDeps) {
    this.records = deps.database ? new RefundRecords(deps.database) : undefined;
  }

  async refund(input: RefundPaymentInput): Promise<RefundPaymentOutput> {
    const data = readSessionData(input.data);
    const { outcome } = data;
    if ((this.deps.options.refunds ?? 'gateway') === 'manual') {
      const trade = outcome?.tradeNo ? ` (gateway tradeNo ${outcome.tradeNo})` : '';
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `Refund this payment${trade} in the gateway's merchant portal: this store's refunds are manual (provider option refunds: 'manual'). No refund was recorded in Medusa.`,
      );
    }
    const refundId = input.context?.idempotency_key;
    if (!refundId) {
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        'gatewaykit refund: Medusa gave no refund id (idempotency_key); nothing was sent to the gateway',
      );
    }
    if (outcome?.status !== 'succeeded' || !outcome.tradeNo) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `gatewaykit refund: payment ${data.orderNo ?? ''} has no successful gateway trade to refund (status ${outcome?.status ?? 'not sent'}); no refund was recorded`,
      );
    }
    // Medusa calls once per refund row; the same id again must never send a second refund.
    if (refundOfEvent(data.refunds, { merTrackNo: refundId })) return { data: { ...data } };
    const currency = (outcome.currency ?? data.currency ?? '').toUpperCase();
    const amount = this.deps.amountOf({ amount: input.amount, currency_code: currency });
    const paymentId = await this.paymentOfRefund(refundId);
    // A chargeback or a portal refund stored since Medusa read this payment counts too.
    const stored = (await this.latestPaymentData(paymentId)) ?? data;
    const rows = await this.refundRowsOf(paymentId, refundId);
    const [lost] = rows ? lostRecords(stored.refunds, new Set(rows.map((row) => row.id))) : [];
    if (lost) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `gatewaykit refund: refund ${lost.merTrackNo} of ${lost.amount} ${lost.currency} was sent to the gateway at ${lost.requestedAt}, but Medusa no longer holds it (its record was lost after it was sent; it is ${lost.status} at the gateway as far as this store knows): what is left cannot be told here, and a refund could return money twice. Refund any more in the merchant portal, or, once the portal shows it failed, close it (POST /admin/gatewaykit/refunds/close). Nothing was sent to the gateway; no refund was recorded`,
      );
    }
    const blocked = await refundBlockedBy(
      {
        chargebacks: stored.chargebacks ?? data.chargebacks,
        uncountedRefunds: stored.refundedAtGateway ?? data.refundedAtGateway,
      },
      async () => ({
        amount,
        paid: outcome.amount ?? data.amount ?? amount,
        refunded: this.otherRefundAmounts(rows, refundId, currency, stored),
        currency,
      }),
    );
    if (blocked) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `gatewaykit refund: ${blocked}. Nothing was sent to the gateway; no refund was recorded`,
      );
    }
    const request = refundRequest({
      merTrackNo: refundId,
      tradeNo: outcome.tradeNo,
      amount,
      paidAmount: outcome.amount ?? data.amount ?? '',
      currency,
      reason: `Medusa refund ${refundId}`,
      remark: data.orderNo ? `orderNo ${data.orderNo}` : undefined,
    });
    let entry: GatewayRefund = {
      merTrackNo: refundId,
      amount,
      currency,
      refundType: request.refundType,
      status: 'pending',
      requestedAt: new Date().toISOString(),
      // The answer replaces what recordSending wrote: the entry is no longer waiting for it.
      sending: undefined,
    };
    await this.recordSending(paymentId, { ...entry, status: 'unknown', sending: true });
    const sent = await sendRefund(this.deps.client(), request);
    if (sent.kind === 'refused') {
      await this.dropRefused(paymentId, refundId);
      throw refundRefused(sent.error, amount, currency);
    }
    if (sent.kind === 'answered') {
      entry = { ...entry, batchNo: sent.batchNo, status: sent.status };
    } else {
      // The refund may exist at the gateway: Medusa keeps its refund and nothing is sent again; the
      // refund notification (matched by merTrackNo) decides (docs/safety-rules.md#unknown-outcome).
      entry = { ...entry, status: 'unknown' };
      this.deps.logger.warn(
        `gatewaykit: refund ${refundId} of ${amount} ${currency} on tradeNo ${outcome.tradeNo}: the gateway's answer was lost (${sent.error instanceof Error ? sent.error.name : 'no answer'}); kept as unknown until its notification arrives (never sent again)`,
      );
    }
    if (entry.status === 'failed') {
      await this.dropRefused(paymentId, refundId);
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `The gateway declined the refund of ${amount} ${currency} (batchNo ${entry.batchNo ?? '?'}); no refund was recorded`,
      );
    }
    this.deps.logger.info(
      `gatewaykit: refund ${refundId} of ${amount} ${currency} on tradeNo ${outcome.tradeNo} -> ${entry.status} (batchNo ${entry.batchNo ?? '?'})`,
    );
    await this.retireRefundedSession(data.orderNo);
    // Still `sending` until Medusa's own write: a notice meanwhile waits for that write (settleRefund),
    // which would otherwise carry this older status over the notice's.
    await this.recordAnswer(paymentId, { ...entry, sending: true });
    // Medusa writes what is returned over the payment data, whole. So the data is read again now, after
    // the answer, and only this refund's entry goes into that copy: whatever was written in place before
    // this read (a chargeback, another refund's entry or result, an alert mark) is kept, and nothing an
    // older copy held is brought back. What is written between this read and Medusa's write (a few
    // statements later, outside any lock the provider can take) is still lost (README, "The payment's
    // data is written in place").
    // Unreadable now: the copy read under the refund's lock, not Medusa's older one.
    const latest = (await this.latestPaymentData(paymentId)) ?? stored;
    return { data: { ...latest, refunds: withRefund(latest.refunds, entry) } as Record<string, unknown> };
  }

  /**
   * Money given back never becomes an order (docs/SECURITY.md §6). The store's completion guard judges
   * before Medusa's cart lock; this is the same judgement under it: Medusa's completion re-reads the
   * cart after taking the lock and completes only with a session in a payable status, so a completion
   * queued behind the one whose compensation refunds here finds none. After an order nothing changes:
   * its payment status comes from the captured and refunded amounts, not from the session.
   */
  private async retireRefundedSession(orderNo: string | undefined): Promise<void> {
    if (!this.deps.sessions || !orderNo) return;
    try {
      await this.deps.sessions.update({ id: orderNo, status: 'canceled' });
    } catch (error) {
      this.deps.logger.error(
        `gatewaykit: session ${orderNo} was refunded but could not be marked canceled (${String(error)}); the completion guard still refuses its cart`,
      );
    }
  }

  /**
   * The payment's Medusa refund rows (undefined without the refund service: unit tests). Medusa's rows,
   * not the payment data's entries: a refund gets its entry only once it is sent, so two refunds at once
   * would not count each other. Rows that cannot be read refuse the refund (it would be judged on too
   * little).
   */
  private async refundRowsOf(
    paymentId: string | undefined,
    refundId: string,
  ): Promise<RefundRow[] | undefined> {
    if (!this.deps.refunds) return undefined;
    try {
      if (!paymentId) throw new Error(`the payment of refund ${refundId} is not known`);
      return await this.deps.refunds.list(
        { payment_id: paymentId },
        { select: ['id', 'amount', 'raw_amount'] },
      );
    } catch (error) {
      throw new MedusaError(
        MedusaError.Types.UNEXPECTED_STATE,
        `gatewaykit refund: the payment's other refunds could not be read (${String(error)}); nothing was sent to the gateway`,
      );
    }
  }

  /** The amounts of the payment's other refund rows (gateway form), but those the gateway failed. */
  private otherRefundAmounts(
    rows: RefundRow[] | undefined,
    refundId: string,
    currency: string,
    data: Partial<GatewaykitSessionData>,
  ): string[] {
    if (!rows) {
      throw new MedusaError(
        MedusaError.Types.UNEXPECTED_STATE,
        `gatewaykit refund: the payment's other refunds could not be read; nothing was sent to the gateway`,
      );
    }
    const failed = failedRefundIds(data.refunds);
    return rows
      .filter((row) => row.id !== refundId && !failed.has(row.id))
      .map((row) =>
        this.deps.amountOf({ amount: (row.raw_amount ?? row.amount) as never, currency_code: currency }),
      );
  }

  /** The refund's entry, committed before it is sent; a refund that cannot be written is not sent. */
  private async recordSending(paymentId: string | undefined, entry: GatewayRefund): Promise<void> {
    if (!this.records) return;
    let written = false;
    try {
      written = Boolean(paymentId) && (await this.records.recordSending(paymentId!, entry));
    } catch (error) {
      this.deps.logger.warn(`gatewaykit: refund ${entry.merTrackNo} could not be recorded: ${String(error)}`);
    }
    if (!written) {
      throw new MedusaError(
        MedusaError.Types.UNEXPECTED_STATE,
        `gatewaykit refund: refund ${entry.merTrackNo} could not be recorded on its payment before sending; nothing was sent to the gateway, no refund was recorded`,
      );
    }
  }

  /**
   * The answer on the refund's entry, in place, before Medusa's own whole write of it: when that write
   * fails Medusa deletes its refund row, and a whole write of another refund's answer meanwhile could
   * have erased the entry recordSending wrote; this one still says the refund was made (and, no row
   * holding it, blocks the payment's refunds). Not written: the entry keeps what recordSending wrote,
   * which blocks the same way, so it is logged.
   */
  private async recordAnswer(paymentId: string | undefined, entry: GatewayRefund): Promise<void> {
    if (!this.records || !paymentId) return;
    try {
      await this.records.recordAnswer(paymentId, entry);
    } catch (error) {
      this.deps.logger.warn(
        `gatewaykit: the answer to refund ${entry.merTrackNo} could not be written on its entry (${String(error)}); Medusa's write of it follows`,
      );
    }
  }

  /** A refund the gateway refused or declined at once made nothing: its entry goes, as Medusa's row does. */
  private async dropRefused(paymentId: string | undefined, refundId: string): Promise<void> {
    if (!this.records || !paymentId) return;
    try {
      await this.records.dropRefused(paymentId, refundId);
    } catch (error) {
      // Left as unknown: it blocks the payment's refunds until its notice or a person settles it.
      this.deps.logger.error(
        `gatewaykit: refund ${refundId} was refused by the gateway, but its entry on payment ${paymentId} could not be removed (${String(error)}); its notice or the reconciliation settles it`,
      );
    }
  }

  /** The id of the payment a Medusa refund row belongs to; undefined when unreadable. */
  private async paymentOfRefund(refundId: string): Promise<string | undefined> {
    if (!this.deps.refunds) return undefined;
    try {
      const refund = await this.deps.refunds.retrieve(refundId, { select: ['id', 'payment_id'] });
      return refund.payment_id ?? undefined;
    } catch (error) {
      this.deps.logger.warn(`gatewaykit: reading the payment of refund ${refundId} failed: ${String(error)}`);
      return undefined;
    }
  }

  /** The stored data of a payment, read now; undefined when unreadable. */
  private async latestPaymentData(
    paymentId: string | undefined,
  ): Promise<Partial<GatewaykitSessionData> | undefined> {
    if (!this.deps.payments || !paymentId) return undefined;
    try {
      const payment = await this.deps.payments.retrieve(paymentId, { select: ['id', 'data'] });
      return readSessionData(payment.data ?? undefined);
    } catch (error) {
      this.deps.logger.warn(`gatewaykit: reading the data of payment ${paymentId} failed: ${String(error)}`);
      return undefined;
    }
  }
}
