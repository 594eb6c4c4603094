import { type ChargebackEvent, type RefundEvent, refundTypeOf, withUncountedRefund } from '@gatewaykit/core';
import type { MedusaContainer, PaymentSessionDTO } from '@medusajs/framework/types';
import { Modules } from '@medusajs/framework/utils';
import {
  applyRefundEvent,
  type GatewayChargeback,
  type GatewayRefund,
  refundOfEvent,
  withChargeback,
  withRefund,
} from './gateway-records';
import type { PaymentRef } from './merchant-alerts';
import { PaymentDataWrites } from './payment-data-writes';
import { gatewayAmount } from './payment-request';
import { readSessionData } from './session-data';

/**
 * How long after Medusa created a refund row its payment data may still lack the refund: the provider
 * is still waiting for the gateway's answer, and Medusa writes the data once it returns.
 */
const REFUND_IN_FLIGHT_MS = 60_000;

/** A notice about a refund row whose payment data is not written yet: answered 500, delivered again. */
class RefundStillRecordingError extends Error {}

export type RefundSettlement =
  | { kind: 'no-payment' | 'no-entry'; payment: PaymentRef }
  | { kind: 'mismatch'; payment: PaymentRef; message: string }
  | { kind: 'duplicate' | 'conflict' | 'changed'; payment: PaymentRef; entry: GatewayRefund };

type PaymentRow = { id: string; data?: Record<string, unknown> | null };

/** The Medusa payment of a payment session (created when the session was authorized). */
async function paymentOfSession(scope: MedusaContainer, sessionId: string): Promise<PaymentRow | undefined> {
  const [payment] = await scope
    .resolve(Modules.PAYMENT)
    .listPayments({ payment_session_id: sessionId }, { select: ['id', 'data'] });
  return payment as PaymentRow | undefined;
}

/**
 * Writes a session's data; its status unchanged unless `status` says (a notice says nothing about the
 * session's payment status, retireSession aside).
 */
async function updateSessionData(
  scope: MedusaContainer,
  session: PaymentSessionDTO,
  data: Record<string, unknown>,
  status: PaymentSessionDTO['status'] = session.status,
): Promise<void> {
  await scope.resolve(Modules.PAYMENT).updatePaymentSession({
    id: session.id,
    amount: session.amount,
    currency_code: session.currency_code,
    data,
    status,
  });
}

/**
 * Money given back at the gateway never becomes an order (docs/SECURITY.md §6). The store's completion
 * guard judges before Medusa's cart lock, reading what the notice keeps; for a session whose Medusa
 * payment took the success, Medusa's completion then reuses that payment without asking the provider,
 * so a completion that passed the guard just before the notice was stored is judged here, under that
 * lock (notices run in the cart's exclusive section): the session is marked `canceled`, and Medusa's
 * completion, which reads the sessions again once it holds the lock, completes only with a payable one.
 * Marked before the notice is written: a notice stored is never left with its session payable (a retry
 * finds the notice stored and writes nothing). Without a Medusa payment the provider's authorizePayment
 * judges under the lock, and the session keeps its status (the reconciliation still asks about it).
 * Once an order exists nothing changes: its payment status comes from the captured and refunded
 * amounts, not from the session (as for a refund made through Medusa).
 */
async function retireSession(scope: MedusaContainer, session: PaymentSessionDTO): Promise<void> {
  if (session.status !== 'canceled') await updateSessionData(scope, session, session.data ?? {}, 'canceled');
}

function refOf(session: PaymentSessionDTO, payment: PaymentRow | undefined, tradeNo?: string): PaymentRef {
  const data = readSessionData((payment?.data ?? session.data) as Record<string, unknown> | undefined);
  return { orderNo: session.id, tradeNo: tradeNo ?? data.outcome?.tradeNo, paymentId: payment?.id };
}

/**
 * Said to the merchant before the change that calls for it is written: a process that dies in between
 * says it again on the next delivery (which finds nothing written) rather than never.
 */
export type AlertBeforeWrite<T> = (change: T) => Promise<void>;

/**
 * Applies a refund's result (notification or query) to the payment data of `session`'s payment. Run
 * under the session's exclusive section; `beforeWrite` is given a change before it is stored, and the
 * caller logs by the result.
 */
export async function settleRefund(
  scope: MedusaContainer,
  session: PaymentSessionDTO,
  event: RefundEvent,
  beforeWrite: AlertBeforeWrite<RefundSettlement & { kind: 'changed' }> = async () => {},
  now: Date = new Date(),
): Promise<RefundSettlement> {
  const payment = await paymentOfSession(scope, session.id);
  const ref = refOf(session, payment, event.tradeNo);
  if (!payment) {
    // A success no Medusa payment took (PAID BUT NOT APPLIED), refunded in the merchant portal: kept on
    // the session, so its cart never becomes an order for money given back (lib/returned-payment.ts).
    const kept = readSessionData(session.data);
    const refundedAtGateway = withUncountedRefund(kept.refundedAtGateway, event);
    if (refundedAtGateway) await updateSessionData(scope, session, { ...kept, refundedAtGateway });
    return { kind: 'no-payment', payment: ref };
  }
  const data = readSessionData(payment.data ?? undefined);
  let refunds = data.refunds;
  const tradeNo = data.outcome?.tradeNo;
  // An entry written right before its request left (lib/refund-records.ts) and not yet answered: Medusa
  // will write the request's answer over the payment data, so the notice waits for it, as below.
  const noticed = refundOfEvent(refunds, event);
  if (noticed?.sending) {
    const row = await refundRowOf(scope, payment, noticed.merTrackNo);
    if (row) refuseWhileAnswering(row, payment, now);
  }
  let result = applyRefundEvent(refunds, event, now, tradeNo);
  if (result.kind === 'no-entry' && event.merTrackNo) {
    const entry = await entryOfRefundRow(scope, payment, event.merTrackNo, now);
    if (entry) {
      refunds = withRefund(refunds, entry);
      result = applyRefundEvent(refunds, event, now, tradeNo);
    }
  }
  if (result.kind === 'no-entry') {
    // Made at the gateway, not through Medusa (the merchant portal, as the PAID BUT NOT APPLIED alert
    // asks): money given back all the same, so a cart still open never becomes an order for it
    // (lib/returned-payment.ts). Kept by batchNo, once.
    const refundedAtGateway = withUncountedRefund(data.refundedAtGateway, event);
    if (refundedAtGateway) {
      await retireSession(scope, session);
      await PaymentDataWrites.of(scope).addUncountedRefunds(payment.id, refundedAtGateway);
    }
    return { kind: 'no-entry', payment: ref };
  }
  if (result.kind === 'mismatch') return { kind: 'mismatch', payment: ref, message: result.message };
  if (result.kind === 'changed') {
    await beforeWrite({ kind: 'changed', payment: ref, entry: result.entry });
    await PaymentDataWrites.of(scope).putRefund(payment.id, result.entry);
  }
  return { kind: result.kind, payment: ref, entry: result.entry };
}

/**
 * The refund of a Medusa refund row that the payment data does not list. Young: the refund request is
 * still answering, so the notice must come again (throws). Older: the data lost it to a concurrent
 * write; it is rebuilt from the row (status unknown, settled by the event).
 */
async function entryOfRefundRow(
  scope: MedusaContainer,
  payment: PaymentRow,
  refundId: string,
  now: Date,
): Promise<GatewayRefund | undefined> {
  const row = await refundRowOf(scope, payment, refundId);
  if (!row) return undefined;
  refuseWhileAnswering(row, payment, now);
  const createdAt = new Date(row.created_at);
  const data = readSessionData(payment.data ?? undefined);
  const currency = (data.outcome?.currency ?? data.currency ?? '').toUpperCase();
  const amount = gatewayAmount((row.raw_amount ?? row.amount) as never, currency);
  return {
    merTrackNo: row.id,
    amount,
    currency,
    refundType: refundTypeOf(amount, data.outcome?.amount ?? data.amount ?? amount, currency),
    status: 'unknown',
    requestedAt: createdAt.toISOString(),
  };
}

type RefundRowRead = { id: string; amount: unknown; raw_amount?: unknown; created_at: Date | string };

async function refundRowOf(
  scope: MedusaContainer,
  payment: PaymentRow,
  refundId: string,
): Promise<RefundRowRead | undefined> {
  const [row] = (await scope
    .resolve(Modules.PAYMENT)
    .listRefunds(
      { id: refundId, payment_id: payment.id },
      { select: ['id', 'amount', 'raw_amount', 'created_at'] },
    )) as RefundRowRead[];
  return row;
}

/** A young refund row: its request may still be answering, so the notice must be delivered again (throws). */
function refuseWhileAnswering(row: RefundRowRead, payment: PaymentRow, now: Date): void {
  if (now.getTime() - new Date(row.created_at).getTime() < REFUND_IN_FLIGHT_MS) {
    throw new RefundStillRecordingError(
      `refund ${row.id} of payment ${payment.id} is still being recorded; the notice must be delivered again`,
    );
  }
}

/**
 * Whether the chargeback is already stored for `session` (on its payment, else on the session). Read
 * without a lock: chargebacks are only ever added, so one found stored stays stored.
 */
export async function chargebackStored(
  scope: MedusaContainer,
  session: PaymentSessionDTO,
  event: ChargebackEvent,
): Promise<boolean> {
  const payment = await paymentOfSession(scope, session.id);
  const data = readSessionData((payment?.data ?? session.data) as Record<string, unknown> | undefined);
  return !withChargeback(data.chargebacks, event).added;
}

/**
 * Stores a chargeback on the payment data of `session`'s payment (on the session data when no payment
 * took the charge), `beforeWrite` given it first. `added: false`: it was already stored (a repeated
 * notice).
 */
export async function recordChargeback(
  scope: MedusaContainer,
  session: PaymentSessionDTO,
  event: ChargebackEvent,
  beforeWrite: AlertBeforeWrite<PaymentRef> = async () => {},
  now: Date = new Date(),
): Promise<{ added: boolean; chargeback: GatewayChargeback; payment: PaymentRef }> {
  const payment = await paymentOfSession(scope, session.id);
  const ref = refOf(session, payment, event.tradeNo);
  const data = readSessionData((payment?.data ?? session.data) as Record<string, unknown> | undefined);
  const { added, chargeback, chargebacks } = withChargeback(data.chargebacks, event, now);
  if (added) {
    await beforeWrite(ref);
    if (payment) {
      await retireSession(scope, session);
      await PaymentDataWrites.of(scope).addChargeback(payment.id, chargeback);
    } else {
      await updateSessionData(scope, session, { ...data, chargebacks });
    }
  }
  return { added, chargeback, payment: ref };
}

/** Notes on the payment data that an unsettled refund was reported, so it is reported once. */
export async function markRefundAlerted(
  scope: MedusaContainer,
  session: PaymentSessionDTO,
  merTrackNo: string,
  now: Date,
): Promise<void> {
  const payment = await paymentOfSession(scope, session.id);
  if (!payment) return;
  const data = readSessionData(payment.data ?? undefined);
  const refund = data.refunds?.find((entry) => entry.merTrackNo === merTrackNo);
  if (!refund || refund.alertedAt) return;
  await PaymentDataWrites.of(scope).markRefundAlerted(payment.id, merTrackNo, now.toISOString());
}

/**
 * How old a refund row without its entry must be to be taken for lost: well past the refund request's
 * own deadline (one minute by default, more with a longer client timeout), so a slow refund still
 * being answered is never written back as unknown before Medusa stores (or, refused, deletes) it.
 */
const RESTORE_AFTER_MS = 10 * 60_000;

/**
 * Medusa's refund rows of `session`'s payment that its data does not list, each written back as an
 * `unknown` refund: Medusa stores the row before it asks the provider, so a process that died while the
 * refund was sent (or a lost concurrent write of the data) left a refund that the order shows and no
 * notice or reconciliation would ever look at. Rows younger than RESTORE_AFTER_MS are left alone.
 * Returns the entries added.
 */
export async function restoreMissingRefunds(
  scope: MedusaContainer,
  session: PaymentSessionDTO,
  now: Date,
): Promise<GatewayRefund[]> {
  const payment = await paymentOfSession(scope, session.id);
  if (!payment) return [];
  const data = readSessionData(payment.data ?? undefined);
  const known = new Set((data.refunds ?? []).map((entry) => entry.merTrackNo));
  const rows = (await scope
    .resolve(Modules.PAYMENT)
    .listRefunds({ payment_id: payment.id }, { select: ['id', 'created_at'] })) as {
    id: string;
    created_at: Date | string;
  }[];
  const added: GatewayRefund[] = [];
  for (const { id, created_at } of rows) {
    if (known.has(id) || now.getTime() - new Date(created_at).getTime() < RESTORE_AFTER_MS) continue;
    const entry = await entryOfRefundRow(scope, payment, id, now);
    if (entry) added.push(entry);
  }
  if (added.length > 0) await PaymentDataWrites.of(scope).addRefunds(payment.id, added);
  return added;
}
